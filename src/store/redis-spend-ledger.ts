import { randomUUID } from 'node:crypto';
import { storeUnavailable, type StoreGuard } from './redis-fallback.js';
import { ownerKey, type RedisConnection } from './redis-connection.js';
import { createSettleJournal, type PendingSettle, type SettleJournal } from './settle-journal.js';
import { createMemorySpendLedger, DEFAULT_HOLD_TTL_SECONDS, type ReserveResult, type SpendLedger, type SpendTotals } from './spend-ledger.js';

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

// Reserve: KEYS[3] done marker of the hold; ARGV holdId, amount, limit, account ttl s, hold ttl ms.
// Returns {ok, spent, held}. A hold id already taken or already settled takes nothing more.
const RESERVE = `${PURGE}
local function state(ok)
  return {ok, redis.call('HGET', KEYS[1], 'spent') or '0', redis.call('HGET', KEYS[1], 'held') or '0'}
end
if redis.call('EXISTS', KEYS[3]) == 1 or redis.call('HEXISTS', KEYS[1], 'h:' .. ARGV[1]) == 1 then return state(1) end
local used = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0') + tonumber(redis.call('HGET', KEYS[1], 'held') or '0')
if used + tonumber(ARGV[2]) > tonumber(ARGV[3]) then return state(0) end
redis.call('HINCRBY', KEYS[1], 'held', ARGV[2])
redis.call('HSET', KEYS[1], 'h:' .. ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[1])
local ttl = tonumber(ARGV[4])
if ttl > 0 then
  if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ttl) end
  redis.call('EXPIRE', KEYS[2], ttl)
end
return state(1)
`;

// Read: {spent, held, requests}.
const READ = `${PURGE}
return {redis.call('HGET', KEYS[1], 'spent') or '0', redis.call('HGET', KEYS[1], 'held') or '0', redis.call('HGET', KEYS[1], 'requests') or '0'}
`;

// Settle: KEYS[1] done marker; then (account hash, hold set) per account.
// ARGV holdId, actual, marker ttl s, count (1/0), then one account ttl per account.
// Applied once per hold id (SET NX on the marker): a replay after a lost answer is a no-op.
const SETTLE = `
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

type ReserveCommand = (account: string, holds: string, done: string, holdId: string, amount: string, limit: string, ttl: string, holdTtlMs: string) => Promise<[number, string, string]>;
type ReadCommand = (account: string, holds: string) => Promise<[string, string, string]>;
type SettleCommand = (numKeys: number, ...args: string[]) => Promise<number>;

/** `via` marker of reservations made on the local outage ledger. */
const LOCAL = 'local';
/** Settled hold ids are remembered this long (far beyond any hold TTL or journal backlog). */
const DONE_TTL_SECONDS = 86_400;

/** Options of the Redis ledger. */
export interface RedisLedgerOptions {
  /** How many instances share the budgets (for outage shares); default 1. */
  instances?: () => number;
  holdTtlSeconds?: number;
  /** How often the journal retries while entries wait (ms). */
  journalIntervalMs?: number;
  /** Hears about write-backs of the journal (for logs). */
  onJournalFlushed?: (count: number) => void;
}

/** The Redis ledger, with its journal of settlements not yet written back. */
export interface RedisSpendLedger extends SpendLedger {
  readonly journal: SettleJournal;
  close(): void;
}

/**
 * The spend ledger on Redis. Each account is a hash `<prefix>{<owner>}:spend:<bucket>` with
 * `spent`, `requests`, `held` and one `h:<holdId>` field per open hold, plus a sorted set
 * `{<owner>}:holds:<bucket>` of hold expiries; a hold is released by its settle, or by the
 * next script touching the account once it expired, so a crashed or cut-off instance cannot
 * leak budget. Reserve and settle are one Lua script each (one round trip) over keys of one
 * owner (one hash tag, so they run on Redis Cluster).
 *
 * When Redis fails: settlements go to the journal and are written back on reconnect (never
 * twice: see SettleJournal). In `open` mode reservations are taken on a local outage ledger
 * against this instance's share of what was left (limit minus the last `used` seen, divided by
 * the instance count), so the fleet cannot jointly overspend; in `closed` mode they are
 * refused with 503 `store_unavailable`.
 */
export function createRedisSpendLedger(conn: RedisConnection, guard: StoreGuard, options: RedisLedgerOptions = {}): RedisSpendLedger {
  const holdTtlSeconds = options.holdTtlSeconds ?? DEFAULT_HOLD_TTL_SECONDS;
  const instances = options.instances ?? (() => 1);
  conn.client.defineCommand('gwSpendReserve', { numberOfKeys: 3, lua: RESERVE });
  conn.client.defineCommand('gwSpendRead', { numberOfKeys: 2, lua: READ });
  conn.client.defineCommand('gwSpendSettle', { lua: SETTLE });
  const commands = conn.client as unknown as { gwSpendReserve: ReserveCommand; gwSpendRead: ReadCommand; gwSpendSettle: SettleCommand };
  const keysOf = (account: string) => {
    const i = account.indexOf(':');
    const owner = i < 0 ? account : account.slice(0, i);
    const bucket = i < 0 ? '' : account.slice(i + 1);
    return { owner, hash: ownerKey(conn, owner, `spend:${bucket}`), holds: ownerKey(conn, owner, `holds:${bucket}`) };
  };
  // Last `used` Redis reported per account: the base of outage shares.
  const lastUsed = new Map<string, number>();
  const remember = (account: string, used: number) => {
    if (lastUsed.size > 100_000) lastUsed.clear();
    lastUsed.set(account, used);
  };
  // The local ledger of the current outage (fresh for each one).
  let outage: SpendLedger | undefined;

  const applySettle = async (p: PendingSettle) => {
    if (p.entries.length === 0) return;
    const owner = keysOf(p.entries[0]!.account).owner;
    const keys = [ownerKey(conn, owner, `done:${p.holdId}`)];
    const args = [p.holdId, int(p.actualNano), String(DONE_TTL_SECONDS), p.count ? '1' : '0'];
    for (const e of p.entries) {
      const k = keysOf(e.account);
      keys.push(k.hash, k.holds);
      args.push(String(e.ttlSeconds));
    }
    await commands.gwSpendSettle.call(conn.client, keys.length, ...keys, ...args);
    guard.onSuccess?.();
  };
  const journal = createSettleJournal(applySettle, (count) => {
    options.onJournalFlushed?.(count);
    if (conn.healthy()) outage = undefined;
  });
  journal.start(options.journalIntervalMs ?? 1000);
  conn.onReady(() => { void journal.flush(); });

  const settleOrJournal = async (p: PendingSettle) => {
    try {
      if (guard.suspect?.() || journal.size() > 0) throw new Error('store suspended after a recent failure');
      await applySettle(p);
    } catch (e) {
      guard.onFailure?.(e);
      journal.add(p);
    }
  };

  return {
    journal,
    close: () => journal.stop(),
    async reserve(account, amountNano, limitNano, ttlSeconds, holdId = randomUUID()): Promise<ReserveResult> {
      const k = keysOf(account);
      try {
        if (guard.suspect?.()) throw new Error('store suspended after a recent failure');
        const [ok, spent, held] = await commands.gwSpendReserve.call(conn.client, k.hash, k.holds, ownerKey(conn, k.owner, `done:${holdId}`), holdId, int(amountNano), int(limitNano), String(ttlSeconds), String(holdTtlSeconds * 1000));
        guard.onSuccess?.();
        const used = Number(spent) + Number(held);
        // With our own hold counted: conservative, it becomes the actual cost or less.
        remember(account, used);
        return { ok: ok === 1, usedNano: used };
      } catch (e) {
        guard.onFailure?.(e);
        if (guard.mode === 'closed') throw storeUnavailable();
        outage ??= createMemorySpendLedger(Date.now, holdTtlSeconds);
        // This instance's share of what was left when Redis went away.
        const base = lastUsed.get(account) ?? 0;
        const share = Math.floor(Math.max(0, limitNano - base) / Math.max(1, instances()));
        const r = await outage.reserve(account, amountNano, share, ttlSeconds, holdId);
        // The timed-out script may still run on Redis: release whatever it held, later.
        if (!r.ok) journal.add({ holdId, entries: [{ account, reservedNano: 0, ttlSeconds }], actualNano: 0, count: false });
        return { ok: r.ok, usedNano: base + r.usedNano, via: LOCAL };
      }
    },
    async settle(entries, actualNano, holdId = randomUUID()) {
      const local = entries.filter((e) => e.via === LOCAL);
      if (local.length > 0 && outage) await outage.settle(local, actualNano, holdId);
      await settleOrJournal({ holdId, entries, actualNano, count: true });
    },
    async read(account): Promise<SpendTotals> {
      const k = keysOf(account);
      return guard.run(
        async () => {
          const [spent, held, requests] = await commands.gwSpendRead.call(conn.client, k.hash, k.holds);
          return { usedNano: Number(spent) + Number(held), spentNano: Number(spent), requests: Number(requests) };
        },
        async () => (outage ? outage.read(account) : { usedNano: 0, spentNano: 0, requests: 0 }),
      );
    },
  };
}

function int(n: number): string {
  return BigInt(Math.round(n)).toString();
}
