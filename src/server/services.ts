import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Runtime } from '../compile/runtime.js';
import type { FileRecord, FileStore, JobRecord, JobStore, OperationServices } from '../providers/types.js';
import { createLocalFileStore, createMemoryRecordStore, type RecordStore } from '../store/file-store.js';
import { createJobStore } from '../store/job-store.js';
import { createMemoryRateLimiter, type RateLimiter } from '../store/rate-limiter.js';
import { connectRedis } from '../store/redis-connection.js';
import { createStoreGuard } from '../store/redis-fallback.js';
import { createRedisRateLimiter } from '../store/redis-rate-limiter.js';
import { createRedisRecordStore } from '../store/redis-record-store.js';
import { createRedisSpendLedger } from '../store/redis-spend-ledger.js';
import { createMemorySpendLedger, type SpendLedger } from '../store/spend-ledger.js';
import { createMediaFetcher } from '../upstream/fetch-media.js';
import type { Logger } from 'pino';
import { createRequestEvents, type RequestEvents } from './request-record.js';
import { createMemoryBreakerStore, type BreakerStore } from '../routing/breaker-store.js';
import { createLatencyTracker, type LatencyTracker } from '../routing/latency.js';
import { createRedisBreakerStore } from '../routing/redis-breaker-store.js';

/** Process-wide services shared by all requests. */
export interface SharedServices {
  limiter: RateLimiter;
  /** Per-key spend (budgets reserve-then-settle here). */
  ledger: SpendLedger;
  files: FileStore;
  jobs: JobStore;
  fetchMedia: OperationServices['fetchMedia'];
  realtimeSecret: string;
  /** Request lifecycle events (access log, metrics, traces and the ledger subscribe). */
  events: RequestEvents;
  /** Circuit breakers of upstreams (shared through Redis when the store is Redis). */
  breaker: BreakerStore;
  /** Observed time to first token per model (the `fastest` strategy). */
  latency: LatencyTracker;
  close(): Promise<void>;
}

/** Jobs are kept this long in a shared store (a week: long enough to fetch any result). */
const JOB_TTL_SECONDS = 7 * 86_400;
/** Longest wait at startup for Redis before serving anyway (per `store.on_error`). */
const STORE_CONNECT_WAIT_MS = 2000;

/**
 * Builds the shared services from config. `store.url: memory` keeps rate limits, spend, file
 * records and jobs in this process; a Redis URL keeps them in Redis so several instances
 * enforce one limit and one budget, with this process's memory as the fallback when Redis is
 * unreachable and `store.on_error` is `open` (`closed` answers 503 `store_unavailable`).
 */
export async function createSharedServices(runtime: Runtime, logger: Logger): Promise<SharedServices> {
  const { config } = runtime;
  const fetchPolicy = config.limits.fetch ?? { allow_private: false, max_bytes: 20 * 1024 * 1024, timeout_ms: 15_000 };
  const filesDir = resolve(config.files.dir);
  const base = {
    fetchMedia: createMediaFetcher({ allowPrivate: fetchPolicy.allow_private, maxBytes: fetchPolicy.max_bytes, timeoutMs: fetchPolicy.timeout_ms }),
    realtimeSecret: config.realtime.secret ?? randomBytes(32).toString('hex'),
    events: createRequestEvents((e) => logger.error({ err: { message: (e as Error)?.message } }, 'request listener failed')),
    latency: createLatencyTracker(),
  };
  const localBreaker = createMemoryBreakerStore();
  const memory = {
    limiter: createMemoryRateLimiter(),
    ledger: createMemorySpendLedger(),
    fileRecords: createMemoryRecordStore<FileRecord>() as RecordStore<FileRecord>,
    jobRecords: createMemoryRecordStore<JobRecord>() as RecordStore<JobRecord>,
  };
  if (!/^rediss?:\/\//.test(config.store.url)) {
    return {
      ...base,
      limiter: memory.limiter,
      ledger: memory.ledger,
      files: createLocalFileStore(filesDir, memory.fileRecords),
      jobs: createJobStore(memory.jobRecords),
      breaker: localBreaker,
      close: async () => undefined,
    };
  }
  const conn = connectRedis(config.store.url, (message) => logger.warn({ store: 'redis', err: { message } }, 'store connection error'));
  let lastWarn = 0;
  const guard = createStoreGuard(config.store.on_error, (e) => {
    // One line per 10 s at most while Redis is down; never the URL (it may hold a password).
    if (Date.now() - lastWarn < 10_000) return;
    lastWarn = Date.now();
    logger.warn({ store: 'redis', on_error: config.store.on_error, err: { message: (e as Error)?.message } }, 'store unavailable');
  });
  await conn.ready(STORE_CONNECT_WAIT_MS);
  const limiter = createRedisRateLimiter(conn, guard, memory.limiter);
  const ledger = createRedisSpendLedger(conn, guard, memory.ledger);
  return {
    ...base,
    limiter,
    ledger,
    files: createLocalFileStore(filesDir, createRedisRecordStore(conn, guard, 'file', memory.fileRecords)),
    jobs: createJobStore(createRedisRecordStore(conn, guard, 'job', memory.jobRecords, JOB_TTL_SECONDS)),
    breaker: createRedisBreakerStore(conn, localBreaker),
    close: () => conn.close(),
  };
}
