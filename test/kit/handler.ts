/**
 * The contract of the kit's handler dialects: a provider API the fake upstream serves by code
 * (embeddings, rerank, images, audio, files, video jobs, realtime) rather than from recorded text
 * fixtures. The kit's server reads and parses every request (JSON or multipart), applies the
 * scripted fault first (see fake-upstream.ts `Fault`), and only then asks the dialect to answer.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

/** One file part of a multipart body. */
export interface FormFile { field: string; filename: string; mimetype: string; bytes: Buffer }

/** A multipart body parsed by a real parser (formidable): text fields and file parts, in order. */
export interface ParsedForm {
  fields: Record<string, string[]>;
  files: FormFile[];
}

/** One request as the kit received it, fully read. */
export interface HandlerRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  /** The parsed body when it was JSON. */
  json?: unknown;
  /** The parsed body when it was multipart/form-data. */
  form?: ParsedForm;
}

/** What a handler dialect answers. */
export interface HandlerReply {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  body?: Buffer | string;
  /** Written one by one with a short pause (proves the gateway streams bytes through). */
  chunks?: Buffer[];
}

/** A provider API served by code. */
export interface HandlerDialect {
  readonly name: string;
  /** Whether this dialect serves the request line. */
  match(method: string, url: URL): boolean;
  /** Answers a request the fault did not pre-empt; a refused request also goes to `violations`. */
  handle(req: HandlerRequest, violations: string[]): HandlerReply | Promise<HandlerReply>;
  /** The provider's error body for an injected error status. */
  errorBody(status: number, message: string): unknown;
  /** WebSocket upgrades (realtime); return false when the dialect does not take this one. */
  upgrade?(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
}
