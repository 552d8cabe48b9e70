import type { KeySpec } from '../config/types.js';

/** A key's budget period. */
export type BudgetPeriod = NonNullable<KeySpec['budget']>['period'];

/** The bucket of a budget period a moment falls in. */
export interface PeriodBucket {
  /** Stable id of the bucket, e.g. `day:2026-11-22` or `total`. */
  id: string;
  /** Seconds until the bucket ends (0 for `total`, which never resets). */
  resetsInSeconds: number;
  /** How long the account should be kept (0 = forever). */
  ttlSeconds: number;
}

/**
 * The current bucket of a period, in UTC: calendar minute, hour, day and month, or `total`.
 * Instances compute it from their own clocks; keep them in sync (NTP) so they agree at the edges.
 */
export function currentBucket(period: BudgetPeriod, nowMs: number = Date.now()): PeriodBucket {
  const d = new Date(nowMs);
  const iso = d.toISOString();
  let id: string;
  let end: number;
  switch (period) {
    case 'minute': id = `minute:${iso.slice(0, 16)}`; end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes() + 1); break;
    case 'hour': id = `hour:${iso.slice(0, 13)}`; end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1); break;
    case 'day': id = `day:${iso.slice(0, 10)}`; end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1); break;
    case 'month': id = `month:${iso.slice(0, 7)}`; end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1); break;
    default: return { id: 'total', resetsInSeconds: 0, ttlSeconds: 0 };
  }
  const resetsInSeconds = Math.max(1, Math.ceil((end - nowMs) / 1000));
  // Kept a day past its end so late settlements of long calls still land in it.
  return { id, resetsInSeconds, ttlSeconds: resetsInSeconds + 86_400 };
}
