import type { CompiledRoute, KeyEntry, Runtime } from '../compile/runtime.js';
import type { OperationServices } from '../providers/types.js';
import type { RequestRecord } from './request-record.js';
import type { RequestAbort } from '../upstream/request-abort.js';

/** Typed per-request state, kept in `ctx.state.gw` and nowhere else. */
export interface GatewayState {
  /** The runtime captured when the request arrived (a reload never changes it mid-request). */
  runtime: Runtime;
  route: CompiledRoute;
  services: OperationServices;
  requestId: string;
  /** Aborted when the client goes away before the response is finished. */
  abort: RequestAbort;
  /** The authenticated key, on key routes. */
  key?: KeyEntry;
  /** Name of the admin key, on operator routes called with one. */
  admin?: string;
  /** Hex sha256 of the calling key: owner of files and jobs ('' when anonymous). */
  owner: string;
  /** The parsed, validated JSON body (or multipart fields). */
  body: Record<string, unknown>;
  /** What this request did, for the access log, metrics, traces and the ledger. */
  record: RequestRecord;
  /** Uploaded multipart files (path on disk, name, type, size). */
  files?: UploadedFile[];
}

export interface UploadedFile { field: string; path: string; filename: string; mimeType: string; size: number }

/**
 * Koa state shape of this app: `record` exists on every request (unknown paths included);
 * `gw` on routed ones. `gw.record` is the same object as `record`.
 */
export interface AppState { gw: GatewayState; record: RequestRecord }
