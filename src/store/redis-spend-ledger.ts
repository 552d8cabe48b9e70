import type { RedisConnection } from './redis-connection.js';
import type { StoreGuard } from './redis-fallback.js';
import type { ReserveResult, SpendLedger, SpendTotals } from './spend-ledger.js';

// Reserve: KEYS[1] account hash; ARGV amount, limit, ttl seconds. Returns {ok, used}.
// Amounts are passed through as strings (HINCRBY takes integers; Lua would print big
// numbers in exponent form).
const RESERVE = `
local used = tonumber(redis.call('HGET', KEYS[1], 'used') or '0')
if used + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return {0, tostring(used)} end
local after = redis.call('HINCRBY', KEYS[1], 'used', ARGV[1])
if tonumber(ARGV[3]) > 0 and redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
return {1, tostring(after)}
`;

// Settle: KEYS = accounts; ARGV[1] actual; then per account (delta = actual - reserved, ttl).
const SETTLE = `
for i, key in ipairs(KEYS) do
  redis.call('HINCRBY', key, 'used', ARGV[2 * i])
  redis.call('HINCRBY', key, 'spent', ARGV[1])
  redis.call('HINCRBY', key, 'requests', 1)
  local ttl = tonumber(ARGV[2 * i + 1])
  if ttl > 0 and redis.call('TTL', key) < 0 then redis.call('EXPIRE', key, ttl) end
end
return 1
`;

type ReserveCommand = (key: string, amount: string, limit: string, ttl: string) => Promise<[number, string]>;
type SettleCommand = (numKeys: number, ...args: string[]) => Promise<number>;

/** `via` marker of reservations made on the local fallback ledger. */
const LOCAL = 'local';

/**
 * The spend ledger on Redis: accounts are hashes `<prefix>spend:<account>` with fields `used`
 * (settled spend + open reservations), `spent` and `requests`, changed only by the two Lua
 * scripts above, so a reservation is checked and taken in one atomic step across every
 * instance sharing the Redis. Falls back per the guard; a reservation made on the local
 * ledger during an outage is settled there too.
 */
export function createRedisSpendLedger(conn: RedisConnection, guard: StoreGuard, local: SpendLedger): SpendLedger {
  conn.client.defineCommand('gwSpendReserve', { numberOfKeys: 1, lua: RESERVE });
  conn.client.defineCommand('gwSpendSettle', { lua: SETTLE });
  const commands = conn.client as unknown as { gwSpendReserve: ReserveCommand; gwSpendSettle: SettleCommand };
  const keyOf = (account: string) => `${conn.prefix}spend:${account}`;
  return {
    reserve(account, amountNano, limitNano, ttlSeconds) {
      return guard.run(
        async (): Promise<ReserveResult> => {
          const [ok, used] = await commands.gwSpendReserve.call(conn.client, keyOf(account), int(amountNano), int(limitNano), String(ttlSeconds));
          return { ok: ok === 1, usedNano: Number(used) };
        },
        async () => ({ ...(await local.reserve(account, amountNano, limitNano, ttlSeconds)), via: LOCAL }),
      );
    },
    async settle(entries, actualNano) {
      const remote = entries.filter((e) => e.via !== LOCAL);
      const localOnes = entries.filter((e) => e.via === LOCAL);
      if (localOnes.length > 0) await local.settle(localOnes, actualNano);
      if (remote.length === 0) return;
      await guard.run(
        async () => {
          const args: string[] = [int(actualNano)];
          for (const e of remote) args.push(int(actualNano - e.reservedNano), String(e.ttlSeconds));
          await commands.gwSpendSettle.call(conn.client, remote.length, ...remote.map((e) => keyOf(e.account)), ...args);
        },
        // The reservation stays open on Redis (it is released when the account expires).
        () => local.settle(remote.map((e) => ({ ...e, reservedNano: 0 })), actualNano),
      );
    },
    read(account) {
      return guard.run(
        async (): Promise<SpendTotals> => {
          const h = await conn.client.hgetall(keyOf(account));
          return { usedNano: Number(h.used ?? 0), spentNano: Number(h.spent ?? 0), requests: Number(h.requests ?? 0) };
        },
        () => local.read(account),
      );
    },
  };
}

function int(n: number): string {
  return BigInt(Math.round(n)).toString();
}
