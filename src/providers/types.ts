import type { Readable } from 'node:stream';
import type { DialectRequest } from '../codecs/codec.js';
import type { Conversation, InternalResponse, StreamEvent } from '../codecs/internal.js';
import type { ModelSpec, ProviderSpec } from '../config/types.js';
import type { AttemptTimeouts, AttemptTrace } from '../upstream/call-upstream.js';
import type { CallSignal } from '../upstream/request-abort.js';
import type { UpstreamHead } from '../upstream/upstream-body.js';
import type { UpstreamErrorInfo } from '../errors/upstream-failure.js';
import type { RequestAuthorizer } from './auth/types.js';

/** A stored upload (SPEC 4.16). Bytes live in the FileStore, not here. */
export interface FileRecord {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  filename: string;
  mime_type: string;
  purpose: string;
  provider: string;
  /** Hash of the API key that uploaded it: only that key may use the file. */
  owner: string;
  /** The provider's own file id, when the file was forwarded to its files API. */
  provider_file_id?: string;
  /** When retention (`files.ttl_days`) deletes it (Unix seconds); absent = kept until deleted. */
  expires_at?: number;
  /** Creation time in milliseconds: the listing order (kept inside the gateway). */
  created_ms?: number;
}

/** Bytes to store: held in memory, or a file on disk (a multipart upload) streamed from there. */
export type FileContent = Uint8Array | { path: string; size: number };

/** Where uploads are kept. */
export interface FileStore {
  /** Stores a new file; `signal` (the client went away) abandons it, leaving nothing stored. */
  put(record: Omit<FileRecord, 'id' | 'object' | 'created_at' | 'bytes'>, content: FileContent, signal?: AbortSignal): Promise<FileRecord>;
  /** The record, or undefined when missing or owned by another key. */
  get(id: string, owner: string): Promise<FileRecord | undefined>;
  read(id: string, owner: string): Promise<Uint8Array | undefined>;
}

/** Asynchronous jobs (video) kept by the gateway so clients can poll them later. */
export interface JobStore {
  save(job: JobRecord): Promise<void>;
  get(id: string): Promise<JobRecord | undefined>;
}

export interface JobRecord {
  id: string;
  owner: string;
  provider: string;
  model: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed';
  created_at: number;
  /** Provider-specific state needed to poll (upstream id, operation name ...). */
  upstream?: Record<string, unknown>;
  /** The client-facing result once completed. */
  result?: Record<string, unknown>;
  error?: { code: string; message: string } | null;
}

/** Signs and checks realtime WebSocket URLs served by the gateway itself. */
export interface RealtimeSigner {
  /** A URL of the gateway's own `/v1/realtime/ws` with a signed, expiring token. */
  sign(claims: RealtimeClaims): { url: string; expiresAt: number; token: string };
  /** The claims when the token is authentic and unexpired, else undefined. */
  verify(token: string): RealtimeClaims | undefined;
}

export interface RealtimeClaims {
  session: string;
  model: string;
  owner: string;
  /** Unix seconds when the URL stops being accepted. */
  exp: number;
  max_duration_seconds: number;
  max_budget_usd: number;
}

/** Services the engine hands to every provider operation. */
export interface OperationServices {
  files: FileStore;
  jobs: JobStore;
  realtime: RealtimeSigner;
  /** Fetch a client-supplied URL safely (SSRF rules, size and time limits). */
  fetchMedia(url: string, signal: AbortSignal): Promise<{ bytes: Uint8Array; contentType: string }>;
}

/** Everything one provider call needs. */
export interface OperationCall {
  /** Operation name from the route, e.g. `embeddings`, `images.generations`. */
  operation: string;
  /** The validated client body. */
  body: Record<string, unknown>;
  model: ModelSpec;
  providerName: string;
  provider: ProviderSpec;
  /** Resolved key for the provider (undefined for keyless providers such as the sandbox). */
  apiKey?: string;
  /** Resolved base URL. */
  baseUrl?: string;
  /** The deployment's platform shape and credentials (cloud providers); absent = `apiKey` in the dialect's headers. */
  access?: UpstreamAccess;
  /** Aborted when the client goes away. */
  signal: CallSignal;
  /** Upstream timeout for this call (ms): the first-byte deadline, kept for older callers. */
  timeoutMs: number;
  /** Routing deadlines of each attempt (connect, first byte, idle). */
  timeouts?: AttemptTimeouts;
  /** Filled by every upstream call of this attempt; read by the routing loop. */
  trace?: AttemptTrace;
  /** The gateway request id, forwarded upstream as `x-request-id`. */
  requestId?: string;
  /** Name of the provider deployment this attempt goes to (`providers.<name>.upstreams[].name`). */
  upstreamName?: string;
  /** Hash of the calling gateway key: the owner of files and jobs. */
  owner: string;
  services: OperationServices;
}

/** Where one deployment of a cloud provider lives (`project`, `location`, `region`, per upstream or provider). */
export interface Placement {
  readonly project?: string;
  readonly location?: string;
  readonly region?: string;
}

/**
 * How one provider deployment is reached beyond a base URL and a key: a cloud platform's
 * request shape (src/providers/platforms) and credentials (src/providers/auth). Built once per
 * deployment at compile time; every upstream request of the deployment (dialect calls,
 * same-format passthrough, YAML mappings) goes through `shape` and then `authorizer`.
 */
export interface UpstreamAccess {
  /** Rewrites a dialect's request for the platform (Vertex, Azure, Bedrock URLs and body envelope). */
  readonly shape?: (req: DialectRequest, call: OperationCall) => DialectRequest;
  /** Puts credentials on each finished request: bearer tokens, `api-key`, SigV4 signatures. */
  readonly authorizer?: RequestAuthorizer;
  /** Project, location and region of the deployment (mapping templates' `{project}`, `{location}`, `{region}`). */
  readonly place?: Placement;
  /**
   * Reads a 2xx answer of the platform's own framing as the dialect's (Bedrock's binary event
   * stream as server-sent events); the answer as it is otherwise.
   */
  readonly answer?: (res: UpstreamHead, call: OperationCall) => UpstreamHead | Promise<UpstreamHead>;
  /** Reads an error answer the platform's way (Bedrock names errors in `x-amzn-ErrorType`); undefined: the dialect's reading. */
  readonly failure?: (status: number, headers: Readonly<Record<string, string | string[] | undefined>>, body: unknown) => PlatformFailure | undefined;
}

/** An upstream error as a platform reads it: the status the error table should see and what the provider said. */
export interface PlatformFailure { readonly status: number; readonly info: UpstreamErrorInfo }

/** What a non-text operation returns. */
export type OperationResult =
  | { kind: 'json'; body: Record<string, unknown>; status?: number; headers?: Record<string, string> }
  | { kind: 'bytes'; contentType: string; body: Uint8Array | Readable; headers?: Record<string, string> };

/** A provider's text generation, in the internal form. */
export interface TextBackend {
  complete(request: Conversation, call: OperationCall): Promise<InternalResponse>;
  stream(request: Conversation, call: OperationCall): AsyncIterable<StreamEvent>;
}

/** A named provider implementation (`type:` in gateway.yaml). */
export interface ProviderImplementation {
  readonly type: string;
  /** Text generation, when the provider does text. */
  text?: TextBackend;
  /** Non-text operations implemented natively (the sandbox) keyed by operation name. */
  operations?: Record<string, (call: OperationCall) => Promise<OperationResult>>;
  /** Serves an accepted realtime WebSocket (signature already verified by the engine). */
  openRealtime?: (socket: import('ws').WebSocket, claims: RealtimeClaims, upstream: RealtimeUpstream) => void;
}

/**
 * What a realtime relay needs to reach its provider: its key (the dialect's own header) and its
 * deployment's access, whose authorizer puts the credentials on the handshake as on any call.
 */
export interface RealtimeUpstream { providerName: string; provider: ProviderSpec; apiKey?: string; baseUrl?: string; upstreamModel: string; access?: UpstreamAccess }
