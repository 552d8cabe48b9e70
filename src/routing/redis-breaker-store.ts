import type { RedisConnection } from '../store/redis-connection.js';
import type { BreakerVerdict } from './breaker.js';
import type { BreakerStore } from './breaker-store.js';

// The rules of breaker.ts, in Lua so they hold atomically across instances; times come from
// Redis's clock so instances agree. One hash per upstream: failures, first, opened, probe.
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
// KEYS[1]; ARGV cooldown ms. Returns 0 closed, 1 open, 2 probe (claimed), plus failures so far.
const CHECK = `${NOW}
local s = redis.call('HMGET', KEYS[1], 'failures', 'opened', 'probe')
local failures = tonumber(s[1] or '0')
if not s[2] then return {0, failures} end
local cooldown = tonumber(ARGV[1])
if now - tonumber(s[2]) < cooldown then return {1, failures} end
if s[3] and now - tonumber(s[3]) < cooldown then return {1, failures} end
redis.call('HSET', KEYS[1], 'probe', now)
return {2, failures}`;
// KEYS[1]; ARGV threshold, window ms, ttl ms.
const FAIL = `${NOW}
local s = redis.call('HMGET', KEYS[1], 'failures', 'first', 'opened')
local failures = tonumber(s[1] or '0')
local first = tonumber(s[2] or '0')
if s[3] then
  redis.call('HSET', KEYS[1], 'failures', failures + 1, 'opened', now)
  redis.call('HDEL', KEYS[1], 'probe')
else
  if failures == 0 or now - first > tonumber(ARGV[2]) then failures = 1 first = now else failures = failures + 1 end
  redis.call('HSET', KEYS[1], 'failures', failures, 'first', first)
  if failures >= tonumber(ARGV[1]) then redis.call('HSET', KEYS[1], 'opened', now) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return failures`;

// KEYS[1]; ARGV cooldown ms. Milliseconds until the cooldown (or an in-flight probe's) ends.
const LEFT = `${NOW}
local s = redis.call('HMGET', KEYS[1], 'opened', 'probe')
if not s[1] then return 0 end
local since = math.max(tonumber(s[1]), tonumber(s[2] or '0'))
return math.max(0, since + tonumber(ARGV[1]) - now)`;

/** How long an upstream found clean in Redis is trusted without another read. */
export const CLEAN_TRUST_MS = 1000;

type Check = (key: string, cooldownMs: string) => Promise<[number, number]>;
type Left = (key: string, cooldownMs: string) => Promise<number>;
type Fail = (key: string, threshold: string, windowMs: string, ttlMs: string) => Promise<number>;

/**
 * A breaker store on Redis (`store.url`), shared by all instances. A success deletes the
 * state only when this instance saw it dirty (failures or a probe), and an upstream found clean
 * (closed, no failures) is trusted for CLEAN_TRUST_MS without asking again, so the happy path
 * costs one Redis read per upstream per interval, not one per request (admission and
 * settlement stay the only per-request round trips); another instance's failures are seen
 * within that interval. When Redis fails, `local` answers (breakers are advice: they never
 * refuse a request because the store is down).
 */
export function createRedisBreakerStore(conn: RedisConnection, local: BreakerStore): BreakerStore {
  conn.client.defineCommand('gwBreakerCheck', { numberOfKeys: 1, lua: CHECK });
  conn.client.defineCommand('gwBreakerFail', { numberOfKeys: 1, lua: FAIL });
  conn.client.defineCommand('gwBreakerLeft', { numberOfKeys: 1, lua: LEFT });
  const client = conn.client as unknown as { gwBreakerCheck: Check; gwBreakerFail: Fail; gwBreakerLeft: Left };
  const check = client.gwBreakerCheck.bind(conn.client);
  const fail = client.gwBreakerFail.bind(conn.client);
  const left = client.gwBreakerLeft.bind(conn.client);
  const dirty = new Set<string>();
  // Upstreams last seen clean, until when (ms): checked locally until then.
  const cleanUntil = new Map<string, number>();
  const keyOf = (key: string) => `${conn.prefix}breaker:${key}`;
  return {
    async check(key, policy): Promise<BreakerVerdict> {
      if ((cleanUntil.get(key) ?? 0) > Date.now()) return 'closed';
      try {
        const [verdict, failures] = await check(keyOf(key), String(policy.cooldownMs));
        if (failures > 0 || verdict === 2) dirty.add(key);
        else dirty.delete(key);
        if (verdict === 0 && failures === 0) cleanUntil.set(key, Date.now() + CLEAN_TRUST_MS);
        else cleanUntil.delete(key);
        return verdict === 0 ? 'closed' : verdict === 1 ? 'open' : 'probe';
      } catch {
        return local.check(key, policy);
      }
    },
    async record(key, ok, policy) {
      try {
        if (ok) {
          if (dirty.delete(key)) await conn.client.del(keyOf(key));
          return;
        }
        dirty.add(key);
        cleanUntil.delete(key);
        await fail(keyOf(key), String(policy.failures), String(policy.windowMs), String(2 * (policy.windowMs + policy.cooldownMs)));
      } catch {
        await local.record(key, ok, policy);
      }
    },
    async cooldownLeftMs(key, policy) {
      try {
        return Number(await left(keyOf(key), String(policy.cooldownMs)));
      } catch {
        return local.cooldownLeftMs(key, policy);
      }
    },
  };
}
