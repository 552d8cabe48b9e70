/**
 * The Redis implementations of the shared stores, imported by open-stores.ts only when `store.url`
 * is a Redis URL: a gateway on the memory store (the shipped config) loads none of them.
 */
export { createStoreGuard } from '../store/redis-fallback.js';
export { createRedisRateLimiter } from '../store/redis-rate-limiter.js';
export { createRedisRecordStore } from '../store/redis-record-store.js';
export { createRedisSpendLedger } from '../store/redis-spend-ledger.js';
export { createRedisResponseStore } from '../store/response-store-redis.js';
export { createRedisBreakerStore } from '../routing/redis-breaker-store.js';
