import type { Logger } from 'pino';
import type { RuntimeStore } from '../compile/runtime-store.js';
import type { Runtime } from '../compile/runtime.js';
import type { JobRecord, JobStore } from '../providers/types.js';
import { createMemoryBreakerStore, type BreakerStore } from '../routing/breaker-store.js';
import { createFileServices } from '../store/file-services.js';
import { createMemoryRecordStore, type ManagedFileStore, type RecordStore } from '../store/file-store.js';
import { createJobStore } from '../store/job-store.js';
import { createMemoryNonceStore, createRedisNonceStore, type NonceStore } from '../store/nonce-store.js';
import { createMemoryRateLimiter, type RateLimiter } from '../store/rate-limiter.js';
import { storeKindName, storeKindOf } from '../store/redis-url.js';
import { createMemoryResponseStore } from '../store/response-store-memory.js';
import { createMemoryResponseCache, type ResponseCacheStore } from '../store/response-cache.js';
import type { SemanticIndex } from '../store/semantic-index.js';
import { openSemanticIndex } from './open-semantic-index.js';
import { DEFAULT_RESPONSE_STORE_LIMITS, type ResponseStore, type ResponseStoreLimits } from '../store/response-store.js';
import { createMemorySpendLedger, type SpendLedger } from '../store/spend-ledger.js';
import { rememberedConfigHash } from './config-hash.js';
import { createFleet, type Fleet } from './fleet.js';

/** Jobs are kept this long in a shared store (a week: long enough to fetch any result). */
const JOB_TTL_SECONDS = 7 * 86_400;
/** Longest wait at startup for Redis before serving anyway (per `store.on_error`). */
const STORE_CONNECT_WAIT_MS = 2000;

/** The services that live in the configured store (memory or Redis). */
export interface StoreServices {
  /** Single-use ids (realtime URL nonces), shared by the fleet when the store is Redis. */
  nonces: NonceStore;
  /** This instance and its fleet: config hash, instance id, store health (for /readyz and `gateway status`). */
  fleet: Fleet;
  limiter: RateLimiter;
  /** Per-key spend (budgets reserve-then-settle here). */
  ledger: SpendLedger;
  jobs: JobStore;
  /** Circuit breakers of upstreams (shared through Redis when the store is Redis). */
  breaker: BreakerStore;
  /** Stored Responses (`previous_response_id`, `item_reference`), per key. */
  responses: ResponseStore;
  /** The response cache (`cache.store`: this instance's memory or store.url's Redis). */
  cache: ResponseCacheStore;
  /** The semantic cache's index (`cache.semantic.embedding_model` set): pgvector at ledger.url, or this instance's memory. */
  semantic?: SemanticIndex;
}

/** The configured store's services (memory or Redis) and the file services beside them. */
export interface OpenedStores {
  stores: StoreServices;
  files: ManagedFileStore;
  /** Closes the file services and the store's connections. */
  close(): Promise<void>;
}

/**
 * Opens the services that live in the configured store: this process's memory, or Redis with
 * this process's memory as the fallback (server/services.ts createSharedServices), for the
 * runtime in force when they open (store settings take effect on a restart; the fleet's config
 * hash follows reloads). `onStoreError` hears of every failed Redis operation (the store error
 * metric).
 */
export async function openStores(runtimes: RuntimeStore, logger: Logger, onStoreError: () => void): Promise<OpenedStores> {
  const runtime = runtimes.current();
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
  const configHash = hashOfCurrent(runtimes);
  const semantic = await openSemanticIndex(config, logger);
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
      semantic,
    };
    return { stores, files: fileServices.files, close: async () => { fileServices.close(); await semantic?.close(); } };
  }
  // ioredis and the Redis stores are loaded only when the store is Redis.
  const { connectRedis } = await import('../store/redis-connection.js');
  const { createStoreGuard, createRedisRateLimiter, createRedisRecordStore, createRedisSpendLedger, createRedisResponseStore, createRedisBreakerStore, createRedisResponseCache } = await import('./redis-stores.js');
  const conn = connectRedis(config.store.url, (message) => logger.warn({ store: 'redis', err: { message } }, 'store connection error'), config.store.tls);
  let lastWarn = 0;
  const guard = createStoreGuard(config.store.on_error, (e) => {
    onStoreError();
    // One line per 10 s at most while Redis is down; never the URL (it may hold a password).
    if (Date.now() - lastWarn < 10_000) return;
    lastWarn = Date.now();
    logger.warn({ store: 'redis', on_error: config.store.on_error, err: { message: (e as Error)?.message } }, 'store unavailable');
  }, conn);
  await conn.ready(STORE_CONNECT_WAIT_MS);
  let backlog = () => 0;
  let hurry = () => false;
  const fleet = createFleet({
    conn, configHash, storeKind: storeKindName(conn.kind), configuredInstances: config.store.instances, backlog: () => backlog(), hurry: () => hurry(),
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
  hurry = () => ledger.inOutage();
  const stores: StoreServices = {
    nonces: createRedisNonceStore(conn, guard),
    fleet,
    limiter,
    ledger,
    jobs: createJobStore(createRedisRecordStore(conn, guard, 'job', memory.jobRecords, JOB_TTL_SECONDS)),
    breaker: createRedisBreakerStore(conn, localBreaker),
    responses: createRedisResponseStore(conn, guard, responseLimits, memory.responses),
    cache: config.cache.store === 'redis' ? createRedisResponseCache(conn, guard, cacheLimits) : createMemoryResponseCache(cacheLimits),
    semantic,
  };
  const fileServices = createFileServices(config.files, logger, { credentials: runtime.fileCredentials, redis: { conn, guard } });
  return {
    stores,
    files: fileServices.files,
    close: async () => {
      fileServices.close();
      await semantic?.close();
      await fleet.close();
      const lost = await ledger.close();
      if (lost > 0) logger.error({ store: 'redis', settlements: lost }, 'store unreachable at shutdown: settlements not written back');
      await conn.close();
    },
  };
}

/**
 * The fleet hash of the runtime in force, computed when first asked for (a heartbeat, /readyz,
 * status) once per runtime: it walks the whole config, ~10 ms. A reload puts another runtime in
 * force, and the next heartbeat publishes its hash.
 */
function hashOfCurrent(runtimes: RuntimeStore): () => string {
  const hashes = new WeakMap<Runtime, string>();
  return () => {
    const runtime = runtimes.current();
    let hash = hashes.get(runtime);
    if (hash === undefined) hashes.set(runtime, (hash = rememberedConfigHash(runtime.config, runtime.routes.map((r) => r.spec))));
    return hash;
  };
}

/** gateway.yaml `store.responses` over the defaults. */
function responseStoreLimits(spec: { ttl_s?: number; max_bytes?: number; max_total_bytes?: number } | undefined): ResponseStoreLimits {
  const d = DEFAULT_RESPONSE_STORE_LIMITS;
  return { ttlSeconds: spec?.ttl_s ?? d.ttlSeconds, maxBytes: spec?.max_bytes ?? d.maxBytes, maxTotalBytes: spec?.max_total_bytes ?? d.maxTotalBytes };
}
