import type { RedisConnection } from './redis-connection.js';
import { ownerKey } from './redis-url.js';
import type { StoreGuard } from './redis-fallback.js';

/** Single-use ids: the first `consume` of an id wins, every later one (any instance) loses. */
export interface NonceStore {
  /** True when `id` was not consumed before; it stays consumed for `ttlSeconds`. */
  consume(id: string, ttlSeconds: number): Promise<boolean>;
}

/** Nonces in this process's memory (one instance). */
export function createMemoryNonceStore(now: () => number = Date.now): NonceStore {
  const used = new Map<string, number>();
  return {
    async consume(id, ttlSeconds) {
      const t = now();
      if (used.size > 10_000) for (const [k, exp] of used) if (exp <= t) used.delete(k);
      const exp = used.get(id);
      if (exp !== undefined && exp > t) return false;
      used.set(id, t + ttlSeconds * 1000);
      return true;
    },
  };
}

/**
 * Nonces in Redis (`<prefix>{nonce}:<id>`, SET NX with expiry), so a URL consumed on one
 * instance is refused on every other. When Redis is unreachable a nonce cannot be proven
 * unused: `closed` refuses (503), `open` consumes it in `local` memory.
 */
export function createRedisNonceStore(conn: RedisConnection, guard: StoreGuard, local: NonceStore = createMemoryNonceStore()): NonceStore {
  return {
    consume(id, ttlSeconds) {
      return guard.run(
        async () => (await conn.client.set(ownerKey(conn, 'nonce', id), '1', 'EX', Math.max(1, Math.ceil(ttlSeconds)), 'NX')) === 'OK',
        () => local.consume(id, ttlSeconds),
      );
    },
  };
}
