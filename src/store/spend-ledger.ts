/**
 * Per-key spend, in integer nano-dollars (1e-9 USD), kept per account (a key and a budget
 * period bucket). Budgets are reserve-then-settle: the worst case of a call is reserved
 * atomically before it runs (refused when it would take `used` past the limit) and replaced by
 * the real cost after it, so concurrent calls cannot jointly overspend.
 */

import type { RateDecision } from './rate-limiter.js';
import { RecentIds } from './recent-ids.js';

/** A rate limit counted in the same step as a reservation (a limiter key such as `rpm:<owner>`). */
export interface RateCheck { key: string; limit: number; windowSeconds: number }

/** Totals of one account. `used` = settled spend + outstanding reservations. */
export interface SpendTotals { usedNano: number; spentNano: number; requests: number }

/** Outcome of a reservation: refused when used + amount would exceed the limit. */
export interface ReserveResult {
  ok: boolean;
  /** `used` after the reservation (or as found, when refused). */
  usedNano: number;
  /** Opaque: which backing store took the reservation; pass it back in SettleEntry.via. */
  via?: string;
  /** The id the hold was finally taken under, when the ledger had to take it under a new one. */
  holdId?: string;
  /**
   * The decision of the rate check asked along (`ok` is false when it refused; it counts one
   * request only when the reservation is taken).
   */
  rate?: RateDecision;
}

/** How long a hold lives when neither settled nor released (a crashed instance's holds expire). */
export const DEFAULT_HOLD_TTL_SECONDS = 900;


/** One account a settlement applies to, with what was reserved on it (0 when nothing was). */
export interface SettleEntry {
  account: string;
  reservedNano: number;
  /** Expiry of the account in seconds (0 = never). */
  ttlSeconds: number;
  /** ReserveResult.via of the reservation being settled. */
  via?: string;
}

/** Where spend is counted: memory for one instance, Redis when instances share budgets. */
export interface SpendLedger {
  /**
   * Atomically adds a hold of `amountNano` to the account's `used` when the result stays <=
   * `limitNano`. The hold is named `holdId` (a retry with the same id takes nothing more) and
   * expires on its own after the hold TTL unless settled first.
   */
  reserve(account: string, amountNano: number, limitNano: number, ttlSeconds: number, holdId?: string, rate?: RateCheck): Promise<ReserveResult>;
  /** Whether `reserve` takes a RateCheck (checked and counted in the same round trip). */
  readonly checksRate?: boolean;
  /**
   * Releases hold `holdId` (when one was taken) on each entry's account, adds the actual cost
   * and counts one request. Applied at most once per `holdId`, however often it is retried.
   */
  settle(entries: readonly SettleEntry[], actualNano: number, holdId?: string): Promise<void>;
  /** Current totals (zeros for an unknown account). */
  read(account: string): Promise<SpendTotals>;
}

/** Most settled hold ids a memory ledger remembers (for idempotent retries). */
const SETTLED_IDS_KEPT = 1_000;

/** A spend ledger in process memory (one gateway instance). Expired accounts read as empty. */
export function createMemorySpendLedger(now: () => number = Date.now, holdTtlSeconds = DEFAULT_HOLD_TTL_SECONDS): SpendLedger {
  const accounts = new Map<string, SpendTotals & { expiresAt: number }>();
  // Open holds by id (account, amount, expiry) and the ids already settled (with when).
  const holds = new Map<string, { account: string; amount: number; expiresAt: number }>();
  // Settled hold ids, remembered only as long as a retry of that settle or a late reserve of
  // the same hold can arrive (the hold TTL), and at most SETTLED_IDS_KEPT of them. (Kept for a
  // day, they grew the heap by ~450 bytes per request under load.)
  const settled = new RecentIds(SETTLED_IDS_KEPT, holdTtlSeconds * 1000);
  let writes = 0;
  const expireHolds = () => {
    const t = now();
    for (const [id, h] of holds) {
      if (h.expiresAt > t) continue;
      holds.delete(id);
      const a = accounts.get(h.account);
      if (a) a.usedNano -= h.amount;
    }
  };
  const open = (account: string, ttlSeconds: number) => {
    const t = now();
    let a = accounts.get(account);
    if (a && a.expiresAt <= t) a = undefined;
    if (!a) {
      a = { usedNano: 0, spentNano: 0, requests: 0, expiresAt: ttlSeconds > 0 ? t + ttlSeconds * 1000 : Infinity };
      accounts.set(account, a);
      if (++writes % 1024 === 0) for (const [k, v] of accounts) if (v.expiresAt <= t) accounts.delete(k);
    }
    return a;
  };
  return {
    async reserve(account, amountNano, limitNano, ttlSeconds, holdId) {
      if (holds.size > 0) expireHolds();
      const a = open(account, ttlSeconds);
      if (holdId && (holds.has(holdId) || settled.has(holdId))) return { ok: true, usedNano: a.usedNano };
      if (a.usedNano + amountNano > limitNano) return { ok: false, usedNano: a.usedNano };
      a.usedNano += amountNano;
      if (holdId) holds.set(holdId, { account, amount: amountNano, expiresAt: now() + holdTtlSeconds * 1000 });
      return { ok: true, usedNano: a.usedNano };
    },
    async settle(entries, actualNano, holdId) {
      if (holdId) {
        if (settled.has(holdId)) return;
        settled.add(holdId, now());
      }
      const hold = holdId ? holds.get(holdId) : undefined;
      if (holdId) holds.delete(holdId);
      for (const e of entries) {
        const a = open(e.account, e.ttlSeconds);
        // Without an id the caller says what it reserved; with one, the hold itself does.
        const reserved = !holdId ? e.reservedNano : hold?.account === e.account ? hold.amount : 0;
        a.usedNano += actualNano - reserved;
        a.spentNano += actualNano;
        a.requests += 1;
      }
    },
    async read(account) {
      const a = accounts.get(account);
      if (!a || a.expiresAt <= now()) return { usedNano: 0, spentNano: 0, requests: 0 };
      return { usedNano: a.usedNano, spentNano: a.spentNano, requests: a.requests };
    },
  };
}
