import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Runtime } from '../compile/runtime.js';
import type { FileRecord, FileStore, JobRecord, JobStore, OperationServices } from '../providers/types.js';
import { createLocalFileStore, createMemoryRecordStore } from '../store/file-store.js';
import { createJobStore } from '../store/job-store.js';
import { createMemoryRateLimiter, type RateLimiter } from '../store/rate-limiter.js';
import { createMediaFetcher } from '../upstream/fetch-media.js';

/** Process-wide services shared by all requests. */
export interface SharedServices {
  limiter: RateLimiter;
  files: FileStore;
  jobs: JobStore;
  fetchMedia: OperationServices['fetchMedia'];
  realtimeSecret: string;
  close(): Promise<void>;
}

/** Builds the shared services from config (memory store by default). */
export async function createSharedServices(runtime: Runtime): Promise<SharedServices> {
  const { config } = runtime;
  const fetchPolicy = config.limits.fetch ?? { allow_private: false, max_bytes: 20 * 1024 * 1024, timeout_ms: 15_000 };
  return {
    limiter: createMemoryRateLimiter(),
    files: createLocalFileStore(resolve(config.files.dir), createMemoryRecordStore<FileRecord>()),
    jobs: createJobStore(createMemoryRecordStore<JobRecord>()),
    fetchMedia: createMediaFetcher({ allowPrivate: fetchPolicy.allow_private, maxBytes: fetchPolicy.max_bytes, timeoutMs: fetchPolicy.timeout_ms }),
    realtimeSecret: config.realtime.secret ?? randomBytes(32).toString('hex'),
    close: async () => undefined,
  };
}
