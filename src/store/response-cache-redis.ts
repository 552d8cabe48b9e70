import type { RedisConnection } from './redis-connection.js';
import type { StoreGuard } from './redis-fallback.js';
import type { ResponseCacheLimits, ResponseCacheStore } from './response-cache.js';

/**
 * The fleet's cache in store.url's Redis: one string per entry (`<prefix>cache:<key>`), the
 * store time in front of the value, the lifetime kept by Redis (`SET ... EX`). A cache is only
 * an optimisation, so a Redis fault is a miss (and a write that is not made) whatever
 * `store.on_error` says: never a failed call, never a wait longer than the connection's command
 * timeout, and no wait at all while the guard holds Redis suspect after a failure.
 */
export function createRedisResponseCache(conn: RedisConnection, guard: StoreGuard, limits: ResponseCacheLimits): ResponseCacheStore {
  const keyOf = (key: string) => `${conn.prefix}cache:${key}`;
  const fits = (bytes: number) => bytes <= limits.maxEntryBytes;
  return {
    fits,
    async get(key) {
      if (guard.suspect?.()) return undefined;
      try {
        const raw = await conn.client.get(keyOf(key));
        guard.onSuccess?.();
        if (raw === null) return undefined;
        const cut = raw.indexOf(' ');
        const storedAt = Number(raw.slice(0, cut));
        if (cut < 0 || !Number.isFinite(storedAt)) return undefined;
        return { value: raw.slice(cut + 1), storedAt };
      } catch (e) {
        guard.onFailure?.(e);
        return undefined;
      }
    },
    async set(key, value, ttlSeconds) {
      if (!fits(Buffer.byteLength(value)) || guard.suspect?.()) return;
      try {
        await conn.client.set(keyOf(key), `${Date.now()} ${value}`, 'EX', Math.max(1, Math.round(ttlSeconds)));
        guard.onSuccess?.();
      } catch (e) {
        guard.onFailure?.(e);
      }
    },
  };
}
