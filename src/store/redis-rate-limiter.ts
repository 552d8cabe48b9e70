import type { RateLimiter } from './rate-limiter.js';
import type { RedisConnection } from './redis-connection.js';
import { ownerKey } from './redis-url.js';
import type { StoreGuard } from './redis-fallback.js';

// Fixed windows on Redis's own clock (TIME), so every instance agrees on window boundaries.
// KEYS[1] base key; ARGV limit, window seconds, cost. Returns {allowed, remaining, retryAfter}.
const HIT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local span = tonumber(ARGV[2]) * 1000
local start = math.floor(now / span) * span
local key = KEYS[1] .. ':' .. string.format('%d', start)
local limit = tonumber(ARGV[1])
local cost = tonumber(ARGV[3])
local count = tonumber(redis.call('GET', key) or '0')
local retry = math.max(1, math.ceil((start + span - now) / 1000))
if cost > 0 and count + cost > limit then
  return {0, math.max(0, limit - count), retry}
end
count = redis.call('INCRBY', key, ARGV[3])
if redis.call('PTTL', key) < 0 then redis.call('PEXPIRE', key, span + 1000) end
return {1, math.max(0, limit - count), retry}
`;

type HitCommand = (key: string, limit: string, windowSeconds: string, cost: string) => Promise<[number, number, number]>;

/**
 * The Redis base key of a limiter key `<name>:<owner>`: `<prefix>{<owner>}:rl:<name>` (the
 * owner's hash tag); a key without a colon is its own owner. The spend ledger's reserve script
 * counts rate checks under the same keys, so both see one counter.
 */
export function rateLimitKey(conn: Pick<RedisConnection, 'prefix'>, key: string): string {
  const i = key.indexOf(':');
  return i < 0 ? ownerKey(conn, key, 'rl') : ownerKey(conn, key.slice(i + 1), `rl:${key.slice(0, i)}`);
}

/** A limit as the hit script takes it: whole requests; no limit is the largest safe integer. */
export function rateCap(limit: number): string {
  return String(Number.isFinite(limit) ? Math.floor(limit) : Number.MAX_SAFE_INTEGER);
}

/**
 * A RateLimiter on Redis: one counter per key and fixed window, checked and counted in one Lua
 * script (atomic across instances). A limiter key `<name>:<owner>` is stored as
 * `<prefix>{<owner>}:rl:<name>:<window start ms>` (the owner's hash tag). Failures go through
 * the guard (`store.on_error`): fail open to `local` (this instance's memory limiter, allowed
 * its share `ceil(limit / instances)`) or refuse with 503.
 */
export function createRedisRateLimiter(conn: RedisConnection, guard: StoreGuard, local: RateLimiter, instances: () => number = () => 1): RateLimiter {
  conn.client.defineCommand('gwRateHit', { numberOfKeys: 1, lua: HIT });
  const hit = (conn.client as unknown as { gwRateHit: HitCommand }).gwRateHit.bind(conn.client);
  return {
    hit(key, limit, windowSeconds, cost = 1) {
      return guard.run(
        async () => {
          const [allowed, remaining, retryAfterSeconds] = await hit(rateLimitKey(conn, key), rateCap(limit), String(windowSeconds), String(Math.round(cost)));
          return { allowed: allowed === 1, remaining: Number(remaining), retryAfterSeconds: Number(retryAfterSeconds) };
        },
        () => local.hit(key, Number.isFinite(limit) && limit < Number.MAX_SAFE_INTEGER ? Math.ceil(limit / Math.max(1, instances())) : limit, windowSeconds, cost),
      );
    },
  };
}
