import type { Runtime } from '../compile/runtime.js';
import type { FileStore, JobStore, OperationServices, RealtimeSigner } from '../providers/types.js';
import { createRealtimeSigner } from '../store/realtime-signer.js';

/** What a request's services take from the process-wide ones (server/services.ts). */
export interface RequestServiceSources { readonly files: FileStore; readonly jobs: JobStore; readonly realtimeSecret: string }

/** Where the client addressed the request (Koa's request fits): realtime URLs' base by default. */
export interface RequestOrigin { readonly protocol: string; readonly host: string }

/**
 * The services one request hands to provider operations. A class, not an object literal with a
 * getter: a per-request closure over the context made every young-generation GC promote the
 * whole request graph (issue 11.1). The realtime signer is built on first use only.
 */
export class RequestServices implements OperationServices {
  readonly files: FileStore;
  readonly jobs: JobStore;
  readonly fetchMedia: OperationServices['fetchMedia'];

  constructor(
    private readonly shared: RequestServiceSources,
    private readonly runtime: Runtime,
    private readonly request: RequestOrigin,
    fetchMedia: OperationServices['fetchMedia'],
  ) {
    this.files = shared.files;
    this.jobs = shared.jobs;
    this.fetchMedia = fetchMedia;
  }

  /** Signs URLs of the gateway's own realtime WebSocket, under its public address. */
  get realtime(): RealtimeSigner {
    const base = this.runtime.config.server.public_url ?? `${this.request.protocol}://${this.request.host}`;
    return createRealtimeSigner(this.shared.realtimeSecret, base, Date.now, this.runtime.config.realtime.url_ttl_seconds);
  }
}
