import type { Conversation } from '../../../src/codecs/internal.js';
import type { ModelSpec } from '../../../src/config/types.js';
import type {
  FileRecord, FileStore, JobRecord, JobStore, OperationCall, RealtimeClaims, RealtimeSigner,
} from '../../../src/providers/types.js';

/** In-memory FileStore honouring owners. */
export class MemoryFileStore implements FileStore {
  readonly records = new Map<string, { record: FileRecord; content: Uint8Array }>();
  async put(record: Omit<FileRecord, 'id' | 'object' | 'created_at' | 'bytes'>, content: Uint8Array): Promise<FileRecord> {
    const full: FileRecord = { ...record, id: `file-${this.records.size + 1}`, object: 'file', created_at: 0, bytes: content.length };
    this.records.set(full.id, { record: full, content });
    return full;
  }
  async get(id: string, owner: string): Promise<FileRecord | undefined> {
    const entry = this.records.get(id);
    return entry && entry.record.owner === owner ? entry.record : undefined;
  }
  async read(id: string, owner: string): Promise<Uint8Array | undefined> {
    const entry = this.records.get(id);
    return entry && entry.record.owner === owner ? entry.content : undefined;
  }
}

/** In-memory JobStore (stores copies, like a real store would). */
export class MemoryJobStore implements JobStore {
  readonly jobs = new Map<string, JobRecord>();
  async save(job: JobRecord): Promise<void> { this.jobs.set(job.id, structuredClone(job)); }
  async get(id: string): Promise<JobRecord | undefined> {
    const job = this.jobs.get(id);
    return job ? structuredClone(job) : undefined;
  }
}

/** A signer whose token is the base64url JSON of the claims (test only, no secret). */
export class FakeRealtimeSigner implements RealtimeSigner {
  readonly signed: RealtimeClaims[] = [];
  sign(claims: RealtimeClaims): { url: string; expiresAt: number; token: string } {
    this.signed.push(claims);
    const token = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return { url: `ws://127.0.0.1:8080/v1/realtime/ws?token=${token}`, expiresAt: claims.exp, token };
  }
  verify(token: string): RealtimeClaims | undefined {
    return JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as RealtimeClaims;
  }
}

/** Options of a fake call. */
export interface FakeCallOptions {
  model?: string;
  owner?: string;
  files?: MemoryFileStore;
  jobs?: MemoryJobStore;
  signer?: FakeRealtimeSigner;
  signal?: AbortSignal;
  media?: Record<string, { bytes: Uint8Array; contentType: string }>;
  architecture?: Record<string, unknown>;
}

/** An OperationCall for the sandbox with in-memory services. */
export function createFakeCall(operation: string, body: Record<string, unknown>, options: FakeCallOptions = {}): OperationCall {
  const modelId = options.model ?? 'sandbox/test-1';
  const model: ModelSpec = { id: modelId, provider: 'sandbox', endpoints: [] };
  if (options.architecture) model.architecture = options.architecture;
  return {
    operation,
    body,
    model,
    providerName: 'sandbox',
    provider: { type: 'sandbox' },
    signal: options.signal ?? new AbortController().signal,
    timeoutMs: 30_000,
    owner: options.owner ?? 'owner-a',
    services: {
      files: options.files ?? new MemoryFileStore(),
      jobs: options.jobs ?? new MemoryJobStore(),
      realtime: options.signer ?? new FakeRealtimeSigner(),
      async fetchMedia(url: string) {
        const found = options.media?.[url];
        if (!found) throw new Error(`unexpected fetch of ${url}`);
        return found;
      },
    },
  };
}

/** A minimal conversation with one user text. */
export function createConversation(text: string, extra: Partial<Conversation> = {}): Conversation {
  return { model: 'sandbox/echo-1', system: [], messages: [{ role: 'user', parts: [{ type: 'text', text }] }], stream: false, ...extra };
}
