/**
 * Per-key spend, in integer nano-dollars (1e-9 USD), kept per account (a key and a budget
 * period bucket). Budgets are reserve-then-settle: the worst case of a call is reserved
 * atomically before it runs (refused when it would take `used` past the limit) and replaced by
 * the real cost after it, so concurrent calls cannot jointly overspend.
 */

/** Totals of one account. `used` = settled spend + outstanding reservations. */
export interface SpendTotals { usedNano: number; spentNano: number; requests: number }

/** Outcome of a reservation: refused when used + amount would exceed the limit. */
export interface ReserveResult {
  ok: boolean;
  /** `used` after the reservation (or as found, when refused). */
  usedNano: number;
  /** Opaque: which backing store took the reservation; pass it back in SettleEntry.via. */
  via?: string;
}

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
  /** Atomically adds `amountNano` to the account's `used` when the result stays <= `limitNano`. */
  reserve(account: string, amountNano: number, limitNano: number, ttlSeconds: number): Promise<ReserveResult>;
  /** Replaces each entry's reservation by the actual cost and counts one request on it. */
  settle(entries: readonly SettleEntry[], actualNano: number): Promise<void>;
  /** Current totals (zeros for an unknown account). */
  read(account: string): Promise<SpendTotals>;
}

/** A spend ledger in process memory (one gateway instance). Expired accounts read as empty. */
export function createMemorySpendLedger(now: () => number = Date.now): SpendLedger {
  const accounts = new Map<string, SpendTotals & { expiresAt: number }>();
  let writes = 0;
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
    async reserve(account, amountNano, limitNano, ttlSeconds) {
      const a = open(account, ttlSeconds);
      if (a.usedNano + amountNano > limitNano) return { ok: false, usedNano: a.usedNano };
      a.usedNano += amountNano;
      return { ok: true, usedNano: a.usedNano };
    },
    async settle(entries, actualNano) {
      for (const e of entries) {
        const a = open(e.account, e.ttlSeconds);
        a.usedNano += actualNano - e.reservedNano;
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
