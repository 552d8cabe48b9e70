import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import type { Runtime } from '../compile/runtime.js';
import type { FileRecord, FileStore, JobRecord, JobStore, OperationServices } from '../providers/types.js';
import { createLocalFileStore, createMemoryRecordStore, type RecordStore } from '../store/file-store.js';
import { createJobStore } from '../store/job-store.js';
import { createMemoryRateLimiter, type RateLimiter } from '../store/rate-limiter.js';
import { computeConfigHash } from '../fleet/config-hash.js';
import { createFleet, type Fleet } from '../fleet/fleet.js';
import { createMemoryNonceStore, createRedisNonceStore, type NonceStore } from '../store/nonce-store.js';
import { connectRedis } from '../store/redis-connection.js';
import { storeKindOf } from '../store/redis-url.js';
import { createStoreGuard } from '../store/redis-fallback.js';
import { createRedisRateLimiter } from '../store/redis-rate-limiter.js';
import { createRedisRecordStore } from '../store/redis-record-store.js';
import { createRedisSpendLedger } from '../store/redis-spend-ledger.js';
import { createMemorySpendLedger, type SpendLedger } from '../store/spend-ledger.js';
import { createMediaFetcher } from '../upstream/fetch-media.js';
import type { Logger } from 'pino';
import { createRequestEvents, type RequestEvents } from './request-record.js';

/** Process-wide services shared by all requests. */
export interface SharedServices {
  limiter: RateLimiter;
  /** Per-key spend (budgets reserve-then-settle here). */
  ledger: SpendLedger;
  files: FileStore;
  jobs: JobStore;
  fetchMedia: OperationServices['fetchMedia'];
  realtimeSecret: string;
  /** Single-use ids (realtime URL nonces), shared by the fleet when the store is Redis. */
  nonces: NonceStore;
  /** This instance and its fleet: config hash, instance id, store health (for /readyz and `gateway status`). */
  fleet: Fleet;
  /** Request lifecycle events (access log, metrics, traces and the ledger subscribe). */
  events: RequestEvents;
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
  };
  const memory = {
    limiter: createMemoryRateLimiter(),
    ledger: createMemorySpendLedger(),
    fileRecords: createMemoryRecordStore<FileRecord>() as RecordStore<FileRecord>,
    jobRecords: createMemoryRecordStore<JobRecord>() as RecordStore<JobRecord>,
  };
  const configHash = computeConfigHash(config, runtime.routes.map((r) => r.spec));
  if (storeKindOf(config.store.url) === 'memory') {
    return {
      ...base,
      nonces: createMemoryNonceStore(),
      fleet: createFleet({ configHash, storeKind: 'memory' }),
      limiter: memory.limiter,
      ledger: memory.ledger,
      files: createLocalFileStore(filesDir, memory.fileRecords),
      jobs: createJobStore(memory.jobRecords),
      close: async () => undefined,
    };
  }
  const conn = connectRedis(config.store.url, (message) => logger.warn({ store: 'redis', err: { message } }, 'store connection error'), config.store.tls);
  let lastWarn = 0;
  const guard = createStoreGuard(config.store.on_error, (e) => {
    // One line per 10 s at most while Redis is down; never the URL (it may hold a password).
    if (Date.now() - lastWarn < 10_000) return;
    lastWarn = Date.now();
    logger.warn({ store: 'redis', on_error: config.store.on_error, err: { message: (e as Error)?.message } }, 'store unavailable');
  }, conn);
  await conn.ready(STORE_CONNECT_WAIT_MS);
  let backlog = () => 0;
  const fleet = createFleet({
    conn, configHash, storeKind: conn.kind, configuredInstances: config.store.instances, backlog: () => backlog(),
    onMismatch: (other, own) => logger.warn({ fleet: { own_config_hash: own, other_config_hash: other.config_hash, other_instance: other.instance_id } }, 'another instance serves a different config'),
  });
  fleet.start();
  const instances = () => fleet.instances();
  const limiter = createRedisRateLimiter(conn, guard, memory.limiter, instances);
  const ledger = createRedisSpendLedger(conn, guard, {
    instances,
    fleetCaughtUp: (since) => fleet.caughtUpSince(since),
    localRate: (key, limit, windowSeconds, cost) => memory.limiter.hit(key, limit >= Number.MAX_SAFE_INTEGER ? limit : Math.ceil(limit / instances()), windowSeconds, cost),
    onJournalFlushed: (count) => logger.info({ store: 'redis', settlements: count }, 'store back: outage journal written back'),
    onSettleRefused: (e) => logger.error({ store: 'redis', err: { message: (e as Error)?.message } }, 'store refused a settlement'),
  });
  backlog = () => ledger.backlog();
  return {
    ...base,
    nonces: createRedisNonceStore(conn, guard),
    fleet,
    limiter,
    ledger,
    files: createLocalFileStore(filesDir, createRedisRecordStore(conn, guard, 'file', memory.fileRecords)),
    jobs: createJobStore(createRedisRecordStore(conn, guard, 'job', memory.jobRecords, JOB_TTL_SECONDS)),
    close: async () => {
      await fleet.close();
      const lost = await ledger.close();
      if (lost > 0) logger.error({ store: 'redis', settlements: lost }, 'store unreachable at shutdown: settlements not written back');
      await conn.close();
    },
  };
}
