/**
 * The Lua scripts of the Redis spend ledger (redis-spend-ledger.ts): reserve (with the rate
 * check of the same request), read and settle. Each runs over keys of one owner (one hash tag).
 */

// Every script first drops expired holds: KEYS[1] account hash (fields spent, held, requests
// and h:<holdId> = amount), KEYS[2] sorted set of hold ids by expiry (ms, Redis clock).
// Amounts travel as strings and come back as the stored strings (Lua numbers print big values
// in exponent form); sums are done by HINCRBY on integers.
const PURGE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, id in ipairs(expired) do
  local amt = redis.call('HGET', KEYS[1], 'h:' .. id)
  if amt then
    redis.call('HINCRBY', KEYS[1], 'held', '-' .. amt)
    redis.call('HDEL', KEYS[1], 'h:' .. id)
  end
  redis.call('ZREM', KEYS[2], id)
end
`;

/**
 * Reserve: KEYS[3] done marker of the hold, KEYS[4] base key of a rate window counter;
 * ARGV holdId, amount, limit, account ttl s, hold ttl ms, rate limit ('' = none), rate window s.
 * Returns {ok (1 taken, 0 over budget, 2 over the rate limit), spent, held, rate remaining,
 * rate retry s}. The rate counts one request only when the hold is taken; a hold id already
 * taken or already settled takes nothing more.
 */
export const RESERVE = `${PURGE}
local rkey, rlimit, rcount, rspan, rretry = nil, 0, 0, 0, 0
if ARGV[6] ~= '' then
  rspan = tonumber(ARGV[7]) * 1000
  local rstart = math.floor(now / rspan) * rspan
  rkey = KEYS[4] .. ':' .. string.format('%d', rstart)
  rlimit = tonumber(ARGV[6])
  rcount = tonumber(redis.call('GET', rkey) or '0')
  rretry = math.max(1, math.ceil((rstart + rspan - now) / 1000))
end
local function state(ok, remaining)
  return {ok, redis.call('HGET', KEYS[1], 'spent') or '0', redis.call('HGET', KEYS[1], 'held') or '0', remaining, rretry}
end
if redis.call('EXISTS', KEYS[3]) == 1 or redis.call('HEXISTS', KEYS[1], 'h:' .. ARGV[1]) == 1 then return state(1, math.max(0, rlimit - rcount)) end
if rkey and rcount + 1 > rlimit then return state(2, math.max(0, rlimit - rcount)) end
local used = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0') + tonumber(redis.call('HGET', KEYS[1], 'held') or '0')
if used + tonumber(ARGV[2]) > tonumber(ARGV[3]) then return state(0, math.max(0, rlimit - rcount)) end
redis.call('HINCRBY', KEYS[1], 'held', ARGV[2])
redis.call('HSET', KEYS[1], 'h:' .. ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[1])
local ttl = tonumber(ARGV[4])
if ttl > 0 then
  if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ttl) end
  redis.call('EXPIRE', KEYS[2], ttl)
end
if rkey then
  rcount = redis.call('INCR', rkey)
  if redis.call('PTTL', rkey) < 0 then redis.call('PEXPIRE', rkey, rspan + 1000) end
end
return state(1, math.max(0, rlimit - rcount))
`;

/**
 * Read: {spent, held, requests}.
 */
export const READ = `${PURGE}
return {redis.call('HGET', KEYS[1], 'spent') or '0', redis.call('HGET', KEYS[1], 'held') or '0', redis.call('HGET', KEYS[1], 'requests') or '0'}
`;

/**
 * Settle: KEYS[1] done marker; then (account hash, hold set) per account.
 * ARGV holdId, actual, marker ttl s, count (1/0), then one account ttl per account.
 * Applied once per hold id (SET NX on the marker): a replay after a lost answer is a no-op.
 */
export const SETTLE = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[3]) then return 0 end
for i = 2, #KEYS, 2 do
  local acct, holds = KEYS[i], KEYS[i + 1]
  local amt = redis.call('HGET', acct, 'h:' .. ARGV[1])
  if amt then
    redis.call('HINCRBY', acct, 'held', '-' .. amt)
    redis.call('HDEL', acct, 'h:' .. ARGV[1])
    redis.call('ZREM', holds, ARGV[1])
  end
  if ARGV[4] == '1' then
    redis.call('HINCRBY', acct, 'spent', ARGV[2])
    redis.call('HINCRBY', acct, 'requests', 1)
    local ttl = tonumber(ARGV[4 + i / 2])
    if ttl > 0 and redis.call('TTL', acct) < 0 then redis.call('EXPIRE', acct, ttl) end
  end
end
return 1
`;
