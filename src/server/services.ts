import { randomBytes } from 'node:crypto';
import type { Runtime } from '../compile/runtime.js';
import type { JobRecord, JobStore, OperationServices } from '../providers/types.js';
import { createFileServices } from '../store/file-services.js';
import { createMemoryRecordStore, type ManagedFileStore, type RecordStore } from '../store/file-store.js';
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
import { createObservability, type Observability } from '../observability/observability.js';
import { createRequestEvents, type RequestEvents } from './request-record.js';
import { createMemoryResponseStore } from '../store/response-store-memory.js';
import { createRedisResponseStore } from '../store/response-store-redis.js';
import { DEFAULT_RESPONSE_STORE_LIMITS, type ResponseStore, type ResponseStoreLimits } from '../store/response-store.js';
import { openLedger, type LedgerServices } from '../ledger/open-ledger.js';

/** Process-wide services shared by all requests. */
export interface SharedServices {
  limiter: RateLimiter;
  /** Per-key spend (budgets reserve-then-settle here). */
  ledger: SpendLedger;
  /** Uploads: bytes locally or in S3-compatible storage, records beside the other shared state. */
  files: ManagedFileStore;
  jobs: JobStore;
  fetchMedia: OperationServices['fetchMedia'];
  realtimeSecret: string;
  /** Request lifecycle events (access log, metrics, traces and the ledger subscribe). */
  events: RequestEvents;
  /** Stored Responses (`previous_response_id`, `item_reference`), per key. */
  responses: ResponseStore;
  /** Metrics, traces and the access log (they listen to `events`). */
  observability: Observability;
  /** Usage ledger, managed keys and teams in PostgreSQL (`ledger.url`); undefined when off. */
  usageLedger?: LedgerServices;
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
  const observability = await createObservability(config, process.env);
  const base = {
    observability,
    fetchMedia: createMediaFetcher({ allowPrivate: fetchPolicy.allow_private, maxBytes: fetchPolicy.max_bytes, timeoutMs: fetchPolicy.timeout_ms }),
    realtimeSecret: config.realtime.secret ?? randomBytes(32).toString('hex'),
    events: createRequestEvents((e) => logger.error({ err: { message: (e as Error)?.message } }, 'request listener failed')),
  };
  const usageLedger = config.ledger.url ? await openLedger({ ...config.ledger, url: config.ledger.url }, base.events, logger) : undefined;
  const closeLedger = async () => { await usageLedger?.close(); };
  const memory = {
    limiter: createMemoryRateLimiter(),
    ledger: createMemorySpendLedger(),
    jobRecords: createMemoryRecordStore<JobRecord>() as RecordStore<JobRecord>,
    responses: createMemoryResponseStore(responseStoreLimits(config.store.responses)),
  };
  if (!/^rediss?:\/\//.test(config.store.url)) {
    const fileServices = createFileServices(config.files, logger, { credentials: runtime.fileCredentials });
    return {
      ...base,
      limiter: memory.limiter,
      ledger: memory.ledger,
      files: fileServices.files,
      jobs: createJobStore(memory.jobRecords),
      responses: memory.responses,
      usageLedger,
      close: async () => {
        fileServices.close();
        await closeLedger();
        await observability.close();
      },
    };
  }
  const conn = connectRedis(config.store.url, (message) => logger.warn({ store: 'redis', err: { message } }, 'store connection error'));
  let lastWarn = 0;
  const guard = createStoreGuard(config.store.on_error, (e) => {
    observability.hooks.storeError('redis');
    // One line per 10 s at most while Redis is down; never the URL (it may hold a password).
    if (Date.now() - lastWarn < 10_000) return;
    lastWarn = Date.now();
    logger.warn({ store: 'redis', on_error: config.store.on_error, err: { message: (e as Error)?.message } }, 'store unavailable');
  });
  await conn.ready(STORE_CONNECT_WAIT_MS);
  const limiter = createRedisRateLimiter(conn, guard, memory.limiter);
  const ledger = createRedisSpendLedger(conn, guard, memory.ledger);
  const fileServices = createFileServices(config.files, logger, { credentials: runtime.fileCredentials, redis: { conn, guard } });
  return {
    ...base,
    limiter,
    ledger,
    files: fileServices.files,
    jobs: createJobStore(createRedisRecordStore(conn, guard, 'job', memory.jobRecords, JOB_TTL_SECONDS)),
    responses: createRedisResponseStore(conn, guard, responseStoreLimits(config.store.responses), memory.responses),
    usageLedger,
    close: async () => {
      fileServices.close();
      await closeLedger();
      await conn.close();
      await observability.close();
    },
  };
}

/** gateway.yaml `store.responses` over the defaults. */
function responseStoreLimits(spec: { ttl_s?: number; max_bytes?: number; max_total_bytes?: number } | undefined): ResponseStoreLimits {
  const d = DEFAULT_RESPONSE_STORE_LIMITS;
  return { ttlSeconds: spec?.ttl_s ?? d.ttlSeconds, maxBytes: spec?.max_bytes ?? d.maxBytes, maxTotalBytes: spec?.max_total_bytes ?? d.maxTotalBytes };
}
