import { randomUUID } from 'node:crypto';
import { isGatewayError } from '../errors/gateway-error.js';
import { StoreSkipped, storeUnavailable, type StoreGuard } from './redis-fallback.js';
import type { RedisConnection } from './redis-connection.js';
import { ownerKey } from './redis-url.js';
import { RESERVE, READ, SETTLE } from './redis-spend-scripts.js';
import { createSettleJournal, type PendingSettle, type SettleJournal } from './settle-journal.js';
import type { RateDecision } from './rate-limiter.js';
import { rateCap, rateLimitKey } from './redis-rate-limiter.js';
import { createMemorySpendLedger, DEFAULT_HOLD_TTL_SECONDS, type RateCheck, type ReserveResult, type SpendLedger, type SpendTotals } from './spend-ledger.js';

type ReserveCommand = (account: string, holds: string, done: string, rate: string, holdId: string, amount: string, limit: string, ttl: string, holdTtlMs: string, rateLimit: string, rateWindow: string) => Promise<[number, string, string, number, number]>;
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
  /** The local rate limiter used for rate checks while Redis is away (its share of each limit). */
  localRate?: (key: string, limit: number, windowSeconds: number, cost: number) => Promise<RateDecision>;
  /** Hears about a settlement Redis refused with an error (never retried: it would fail again). */
  onSettleRefused?: (error: unknown) => void;
  /**
   * Whether every other instance has written back its outage work since `sinceMs` (the fleet's
   * heartbeats). Until then this instance keeps within its outage share even though Redis
   * answers again, since Redis does not yet count what the others admitted. Default: at once.
   */
  fleetCaughtUp?: (sinceMs: number) => boolean;
}

/** The Redis ledger, with its journal of settlements not yet written back. */
export interface RedisSpendLedger extends SpendLedger {
  readonly journal: SettleJournal;
  /** Outage work not yet in Redis: journaled settlements plus local holds still open. */
  backlog(): number;
  /** True from a store failure until the outage ended (this instance and the fleet caught up). */
  inOutage(): boolean;
  /** Stops the timers after writing back what it can (up to 5 s); resolves to the settlements left unwritten. */
  close(): Promise<number>;
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
 * twice: see SettleJournal); before Redis admits anything again, the journal is written back
 * and the holds of calls admitted locally and still running are carried into Redis. In `open` mode reservations are taken on a local outage ledger
 * against this instance's share of what was left (limit minus the last `used` seen, divided by
 * the instance count), so the fleet cannot jointly overspend; in `closed` mode they are
 * refused with 503 `store_unavailable`.
 */
export function createRedisSpendLedger(conn: RedisConnection, guard: StoreGuard, options: RedisLedgerOptions = {}): RedisSpendLedger {
  const holdTtlSeconds = options.holdTtlSeconds ?? DEFAULT_HOLD_TTL_SECONDS;
  const instances = options.instances ?? (() => 1);
  conn.client.defineCommand('gwSpendReserve', { numberOfKeys: 4, lua: RESERVE });
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
  // The local ledger of the current outage (fresh for each one), and when this instance had
  // written all of its outage work back (the outage ends once the fleet has too).
  let outage: SpendLedger | undefined;
  let caughtUpAt = 0;
  const fleetCaughtUp = options.fleetCaughtUp ?? (() => true);
  // Shares of the current outage per account, fixed when first taken.
  const shares = new Map<string, { base: number; share: number }>();
  // Holds taken locally and still open: carried into Redis before it admits anything again, so
  // calls admitted during the outage and still running count against the shared budget.
  const localHolds = new Map<string, { account: string; amountNano: number; ttlSeconds: number }>();
  let catchingUp: Promise<void> | undefined;
  const catchUp = async () => {
    // Settlements journaled while this flush runs are written too: only a flush that wrote
    // nothing (Redis failed again) leaves the journal waiting. A race with a settle that
    // arrived just after a flush is not a store failure.
    while (journal.size() > 0) {
      if ((await journal.flush()) === 0 && journal.size() > 0) throw new Error('outage journal not written back yet');
    }
    for (const [id, h] of localHolds) {
      const k = keysOf(h.account);
      await commands.gwSpendReserve.call(conn.client, k.hash, k.holds, ownerKey(conn, k.owner, `done:${id}`), ownerKey(conn, k.owner, 'rl'), id, int(h.amountNano), String(Number.MAX_SAFE_INTEGER), String(h.ttlSeconds), String(holdTtlSeconds * 1000), '', '0');
      localHolds.delete(id);
    }
    // Redis answered every step: the store is back (ends the guard's pause, or its probe).
    guard.onSuccess?.();
  };
  const endOutageWhenFleetCaughtUp = () => {
    if (!outage) return;
    if (localHolds.size > 0 || journal.size() > 0 || !conn.healthy() || guard.failing?.()) return;
    if (caughtUpAt === 0) {
      caughtUpAt = Date.now();
      return;
    }
    if (!fleetCaughtUp(caughtUpAt)) return;
    outage = undefined;
    caughtUpAt = 0;
    shares.clear();
  };

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
  const journal = createSettleJournal(applySettle, (count) => options.onJournalFlushed?.(count), isPermanentError, (_entry, e) => options.onSettleRefused?.(e));
  journal.start(options.journalIntervalMs ?? 1000);
  conn.onReady(() => { void journal.flush(); });

  // Takes `amountNano` of this instance's outage share of an account (fixed when the outage
  // first touches it: limit minus the last `used` seen, over the instance count). An account
  // this instance never saw in Redis has no known remainder: nothing is admitted (503), unless
  // Redis answers again and `seenUsed` is what it just reported (the base of the share then).
  const takeShare = async (account: string, amountNano: number, limitNano: number, ttlSeconds: number, holdId: string, seenUsed?: number): Promise<ReserveResult> => {
    let s = shares.get(account);
    if (!s) {
      const base = lastUsed.get(account) ?? seenUsed;
      if (base === undefined) throw storeUnavailable();
      s = { base, share: Math.floor(Math.max(0, limitNano - base) / Math.max(1, instances())) };
      shares.set(account, s);
    }
    outage ??= createMemorySpendLedger(Date.now, holdTtlSeconds);
    const r = await outage.reserve(account, amountNano, s.share, ttlSeconds, holdId);
    if (r.ok) localHolds.set(holdId, { account, amountNano, ttlSeconds });
    return { ok: r.ok, usedNano: s.base + r.usedNano };
  };

  let settling = 0;
  const settleOrJournal = async (p: PendingSettle) => {
    settling++;
    try {
      // Behind a journal that waits, a settlement waits too (they are written back in order).
      if (journal.size() > 0 || guard.suspect?.()) throw new StoreSkipped();
      await applySettle(p);
    } catch (e) {
      if (isPermanentError(e)) {
        options.onSettleRefused?.(e);
        return;
      }
      guard.onFailure?.(e);
      journal.add(p);
    } finally {
      settling--;
    }
  };

  // Catch up soon after Redis returns even when no call asks, so others see our local holds.
  const catchUpTimer = setInterval(() => {
    endOutageWhenFleetCaughtUp();
    if ((localHolds.size > 0 || journal.size() > 0) && !catchingUp && !guard.suspect?.()) void (catchingUp = catchUp().catch((e: unknown) => guard.onFailure?.(e)).finally(() => { catchingUp = undefined; }));
  }, 100);
  catchUpTimer.unref();

  const ledger: RedisSpendLedger = {
    journal,
    backlog: () => journal.size() + localHolds.size,
    inOutage: () => outage !== undefined,
    async close() {
      clearInterval(catchUpTimer);
      journal.stop();
      // Settlements still on their way or waiting are written back before the process goes.
      const deadline = Date.now() + 5000;
      while ((settling > 0 || journal.size() > 0) && Date.now() < deadline) {
        if (journal.size() > 0 && conn.healthy()) await journal.flush();
        if (settling > 0 || journal.size() > 0) await new Promise((r) => setTimeout(r, 100));
      }
      return journal.size();
    },
    checksRate: true,
    async reserve(account, amountNano, limitNano, ttlSeconds, holdId = randomUUID(), rate?: RateCheck): Promise<ReserveResult> {
      const k = keysOf(account);
      try {
        if (guard.suspect?.()) throw new StoreSkipped();
        if (localHolds.size > 0 || journal.size() > 0) await (catchingUp ??= catchUp().finally(() => { catchingUp = undefined; }));
        const rateKey = rate ? rateLimitKey(conn, rate.key) : ownerKey(conn, k.owner, 'rl');
        const rateLimit = rate ? rateCap(rate.limit) : '';
        const [ok, spent, held, remaining, retry] = await commands.gwSpendReserve.call(conn.client, k.hash, k.holds, ownerKey(conn, k.owner, `done:${holdId}`), rateKey, holdId, int(amountNano), int(limitNano), String(ttlSeconds), String(holdTtlSeconds * 1000), rateLimit, String(rate?.windowSeconds ?? 0));
        guard.onSuccess?.();
        const decision = rate ? { allowed: ok !== 2, remaining: Number(remaining), retryAfterSeconds: Number(retry) } : undefined;
        if (ok === 1 && localHolds.size > 0) {
          // This instance went local while the reply was on its way: Redis admitted the call
          // without counting our local holds. Give the hold back and ask again once caught up
          // (the rate check already counted this request).
          await applySettle({ holdId, entries: [{ account, reservedNano: 0, ttlSeconds }], actualNano: 0, count: false });
          return { ...(await ledger.reserve(account, amountNano, limitNano, ttlSeconds, randomUUID())), rate: decision };
        }
        const used = Number(spent) + Number(held);
        if (ok === 2) return { ok: false, usedNano: used, holdId, rate: decision };
        if (ok === 1 && outage) {
          // Redis answers again, but other instances may not have written back yet: keep within
          // this instance's outage share until they have.
          // An account first seen now takes its share of what Redis says is left (before this hold).
          const mine = await takeShare(account, amountNano, limitNano, ttlSeconds, holdId, Math.max(0, used - amountNano));
          if (!mine.ok) {
            await applySettle({ holdId, entries: [{ account, reservedNano: 0, ttlSeconds }], actualNano: 0, count: false });
            return { ok: false, usedNano: Math.max(used, mine.usedNano), holdId, rate: decision };
          }
          localHolds.delete(holdId); // held in Redis already; the share only counts it
        }
        // With our own hold counted: conservative, it becomes the actual cost or less.
        remember(account, used);
        return { ok: ok === 1, usedNano: used, holdId, rate: decision };
      } catch (e) {
        if (isGatewayError(e)) throw e;
        guard.onFailure?.(e);
        if (guard.mode === 'closed') throw storeUnavailable();
        caughtUpAt = 0;
        // The rate check first, on this instance's share of the limit (counted; given back on 402).
        let decision: RateDecision | undefined;
        if (rate && options.localRate) {
          decision = await options.localRate(rate.key, rate.limit, rate.windowSeconds, 1);
          if (!decision.allowed) return { ok: false, usedNano: lastUsed.get(account) ?? 0, via: LOCAL, holdId, rate: decision };
        }
        let r: ReserveResult;
        try {
          r = await takeShare(account, amountNano, limitNano, ttlSeconds, holdId);
        } catch (unknown) {
          if (rate && decision) await options.localRate?.(rate.key, Number.MAX_SAFE_INTEGER, rate.windowSeconds, -1);
          throw unknown;
        }
        if (!r.ok && rate && decision) await options.localRate?.(rate.key, Number.MAX_SAFE_INTEGER, rate.windowSeconds, -1);
        // The timed-out script may still run on Redis: release whatever it held, later.
        if (!r.ok) journal.add({ holdId, entries: [{ account, reservedNano: 0, ttlSeconds }], actualNano: 0, count: false });
        return { ok: r.ok, usedNano: r.usedNano, via: LOCAL, holdId, rate: decision };
      }
    },
    async settle(entries, actualNano, holdId = randomUUID()) {
      // What an outage admitted (locally, or by Redis within the share) leaves the share here.
      if (outage) await outage.settle(entries, actualNano, holdId);
      localHolds.delete(holdId);
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
  return ledger;
}

/**
 * Whether Redis answered a command with an error that a retry would meet again (a script or
 * type error), as opposed to being away, loading, failing over or moving a slot.
 */
export function isPermanentError(e: unknown): boolean {
  if (!(e instanceof Error) || e.name !== 'ReplyError') return false;
  return !/^(LOADING|BUSY|TRYAGAIN|CLUSTERDOWN|MOVED|ASK|NOSCRIPT|READONLY|MASTERDOWN|NOREPLICAS|UNBLOCKED)/.test(e.message);
}

function int(n: number): string {
  return BigInt(Math.round(n)).toString();
}
