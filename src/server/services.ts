import { randomBytes } from 'node:crypto';
import type { Runtime } from '../compile/runtime.js';
import type { JobRecord, JobStore } from '../providers/types.js';
import { createFileServices } from '../store/file-services.js';
import { createMemoryRecordStore, type ManagedFileStore, type RecordStore } from '../store/file-store.js';
import { createJobStore } from '../store/job-store.js';
import { createMemoryRateLimiter, type RateLimiter } from '../store/rate-limiter.js';
import { rememberedConfigHash } from '../fleet/config-hash.js';
import { createFleet, type Fleet } from '../fleet/fleet.js';
import { createMemoryNonceStore, createRedisNonceStore, type NonceStore } from '../store/nonce-store.js';
import { storeKindOf } from '../store/redis-url.js';
import { createMemorySpendLedger, type SpendLedger } from '../store/spend-ledger.js';
import type { Logger } from 'pino';
import { createObservability, type Observability } from '../observability/observability.js';
import { createRequestEvents, type RequestEvents } from './request-record.js';
import { createMemoryResponseStore } from '../store/response-store-memory.js';
import { createMemoryResponseCache, type ResponseCacheStore } from '../store/response-cache.js';
import { DEFAULT_RESPONSE_STORE_LIMITS, type ResponseStore, type ResponseStoreLimits } from '../store/response-store.js';
import type { LedgerServices } from '../ledger/open-ledger.js';
import { createMemoryBreakerStore, type BreakerStore } from '../routing/breaker-store.js';
import { createLatencyTracker, type LatencyTracker } from '../routing/latency.js';
import { observeBreakerStore } from '../routing/observed-breaker-store.js';

/** Process-wide services shared by all requests. */
export interface SharedServices {
  limiter: RateLimiter;
  /** Per-key spend (budgets reserve-then-settle here). */
  ledger: SpendLedger;
  /** Uploads: bytes locally or in S3-compatible storage, records beside the other shared state. */
  files: ManagedFileStore;
  jobs: JobStore;
  realtimeSecret: string;
  /** Single-use ids (realtime URL nonces), shared by the fleet when the store is Redis. */
  nonces: NonceStore;
  /** This instance and its fleet: config hash, instance id, store health (for /readyz and `gateway status`). */
  fleet: Fleet;
  /** Request lifecycle events (access log, metrics, traces and the ledger subscribe). */
  events: RequestEvents;
  /** Stored Responses (`previous_response_id`, `item_reference`), per key. */
  responses: ResponseStore;
  /** Metrics, traces and the access log (they listen to `events`). */
  observability: Observability;
  /** Usage ledger, managed keys and teams in PostgreSQL (`ledger.url`); undefined when off. */
  usageLedger?: LedgerServices;
  /** Circuit breakers of upstreams (shared through Redis when the store is Redis). */
  breaker: BreakerStore;
  /** Observed time to first token per model (the `fastest` strategy). */
  latency: LatencyTracker;
  /** The response cache (`cache.store`: this instance's memory or store.url's Redis). */
  cache: ResponseCacheStore;
  close(): Promise<void>;
}

/** The services that live in the configured store (memory or Redis). */
type StoreServices = Pick<SharedServices, 'nonces' | 'fleet' | 'limiter' | 'ledger' | 'jobs' | 'breaker' | 'responses' | 'cache'>;

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
  const observability = await createObservability(config, process.env);
  const base = {
    observability,
    realtimeSecret: config.realtime.secret ?? randomBytes(32).toString('hex'),
    events: createRequestEvents((e) => logger.error({ err: { message: (e as Error)?.message } }, 'request listener failed')),
    latency: createLatencyTracker(),
  };
  // PostgreSQL (pg) is loaded only when a ledger is configured. The ledger opens while the
  // store connects (openStores): each waits on its own server, and one after the other a
  // start waited for both servers' round trips in turn.
  const ledgerUrl = config.ledger.url;
  const ledgerOpening = ledgerUrl
    ? import('../ledger/open-ledger.js').then((m) => m.openLedger({ ...config.ledger, url: ledgerUrl }, base.events, logger))
    : Promise.resolve(undefined);
  const [ledgerOpened, storesOpened] = await Promise.allSettled([ledgerOpening, openStores(runtime, logger, observability)]);
  if (ledgerOpened.status === 'rejected' || storesOpened.status === 'rejected') {
    // A start that fails leaves nothing behind: what did open is closed (tracing's exporter too).
    if (ledgerOpened.status === 'fulfilled') await ledgerOpened.value?.close().catch(() => undefined);
    if (storesOpened.status === 'fulfilled') await storesOpened.value.close().catch(() => undefined);
    await observability.close().catch(() => undefined);
    throw ledgerOpened.status === 'rejected' ? ledgerOpened.reason : (storesOpened as PromiseRejectedResult).reason;
  }
  const { stores, files, close: closeStores } = storesOpened.value;
  const usageLedger = ledgerOpened.value;
  return {
    ...base,
    ...stores,
    files,
    breaker: observeBreakerStore(stores.breaker, observability.hooks.breakerStateChanged),
    usageLedger,
    close: async () => {
      await closeStores();
      await usageLedger?.close();
      await observability.close();
    },
  };
}

/** The configured store's services (memory or Redis) and the file services beside them. */
interface OpenedStores {
  stores: StoreServices;
  files: ManagedFileStore;
  /** Closes the file services and the store's connections. */
  close(): Promise<void>;
}

/**
 * Opens the services that live in the configured store: this process's memory, or Redis with
 * this process's memory as the fallback (see createSharedServices).
 */
async function openStores(runtime: Runtime, logger: Logger, observability: Observability): Promise<OpenedStores> {
  const { config } = runtime;
  const responseLimits = responseStoreLimits(config.store.responses);
  const localBreaker = createMemoryBreakerStore();
  const memory = {
    limiter: createMemoryRateLimiter(),
    ledger: createMemorySpendLedger(),
    jobRecords: createMemoryRecordStore<JobRecord>() as RecordStore<JobRecord>,
    responses: createMemoryResponseStore(responseLimits),
  };
  const cacheLimits = { maxEntryBytes: config.cache.max_entry_bytes, maxTotalBytes: config.cache.max_total_bytes };
  // Computed when first asked for (a heartbeat, /readyz, status): it walks the whole config, ~10 ms of startup.
  const configHash = () => rememberedConfigHash(config, runtime.routes.map((r) => r.spec));
  if (storeKindOf(config.store.url) === 'memory') {
    const fileServices = createFileServices(config.files, logger, { credentials: runtime.fileCredentials });
    const stores: StoreServices = {
      nonces: createMemoryNonceStore(),
      fleet: createFleet({ configHash, storeKind: 'memory' }),
      limiter: memory.limiter,
      ledger: memory.ledger,
      jobs: createJobStore(memory.jobRecords),
      breaker: localBreaker,
      responses: memory.responses,
      cache: createMemoryResponseCache(cacheLimits),
    };
    return { stores, files: fileServices.files, close: async () => { fileServices.close(); } };
  }
  // ioredis and the Redis stores are loaded only when the store is Redis.
  const { connectRedis } = await import('../store/redis-connection.js');
  const { createStoreGuard, createRedisRateLimiter, createRedisRecordStore, createRedisSpendLedger, createRedisResponseStore, createRedisBreakerStore, createRedisResponseCache } = await import('./redis-stores.js');
  const conn = connectRedis(config.store.url, (message) => logger.warn({ store: 'redis', err: { message } }, 'store connection error'), config.store.tls);
  let lastWarn = 0;
  const guard = createStoreGuard(config.store.on_error, (e) => {
    observability.hooks.storeError('redis');
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
  const stores: StoreServices = {
    nonces: createRedisNonceStore(conn, guard),
    fleet,
    limiter,
    ledger,
    jobs: createJobStore(createRedisRecordStore(conn, guard, 'job', memory.jobRecords, JOB_TTL_SECONDS)),
    breaker: createRedisBreakerStore(conn, localBreaker),
    responses: createRedisResponseStore(conn, guard, responseLimits, memory.responses),
    cache: config.cache.store === 'redis' ? createRedisResponseCache(conn, guard, cacheLimits) : createMemoryResponseCache(cacheLimits),
  };
  const fileServices = createFileServices(config.files, logger, { credentials: runtime.fileCredentials, redis: { conn, guard } });
  return {
    stores,
    files: fileServices.files,
    close: async () => {
      fileServices.close();
      await fleet.close();
      const lost = await ledger.close();
      if (lost > 0) logger.error({ store: 'redis', settlements: lost }, 'store unreachable at shutdown: settlements not written back');
      await conn.close();
    },
  };
}

/** gateway.yaml `store.responses` over the defaults. */
function responseStoreLimits(spec: { ttl_s?: number; max_bytes?: number; max_total_bytes?: number } | undefined): ResponseStoreLimits {
  const d = DEFAULT_RESPONSE_STORE_LIMITS;
  return { ttlSeconds: spec?.ttl_s ?? d.ttlSeconds, maxBytes: spec?.max_bytes ?? d.maxBytes, maxTotalBytes: spec?.max_total_bytes ?? d.maxTotalBytes };
}
