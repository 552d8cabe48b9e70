import type { Request } from 'koa';
import type { Runtime } from '../compile/runtime.js';
import type { FileStore, JobStore, OperationServices, RealtimeSigner } from '../providers/types.js';
import { createRealtimeSigner } from '../store/realtime-signer.js';
import type { SharedServices } from './services.js';

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
    private readonly shared: SharedServices,
    private readonly runtime: Runtime,
    private readonly request: Request,
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
