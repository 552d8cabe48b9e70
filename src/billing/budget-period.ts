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

const TOTAL: PeriodBucket = Object.freeze({ id: 'total', resetsInSeconds: 0, ttlSeconds: 0 });

/** The bucket last computed per period, with its bounds: reused until the clock leaves it. */
const lastBuckets = new Map<BudgetPeriod, { id: string; start: number; end: number }>();

/**
 * The current bucket of a period, in UTC: calendar minute, hour, day and month, or `total`.
 * Instances compute it from their own clocks; keep them in sync (NTP) so they agree at the edges.
 * Every reservation asks for it: the bucket's id is made once per bucket, not per call.
 */
export function currentBucket(period: BudgetPeriod, nowMs: number = Date.now()): PeriodBucket {
  if (period !== 'minute' && period !== 'hour' && period !== 'day' && period !== 'month') return TOTAL;
  let last = lastBuckets.get(period);
  if (!last || nowMs < last.start || nowMs >= last.end) {
    last = bucketAt(period, nowMs);
    lastBuckets.set(period, last);
  }
  const resetsInSeconds = Math.max(1, Math.ceil((last.end - nowMs) / 1000));
  // Kept a day past its end so late settlements of long calls still land in it.
  return { id: last.id, resetsInSeconds, ttlSeconds: resetsInSeconds + 86_400 };
}

/** The bucket of a (resetting) period that `nowMs` falls in: its id, start and end. */
function bucketAt(period: 'minute' | 'hour' | 'day' | 'month', nowMs: number): { id: string; start: number; end: number } {
  const d = new Date(nowMs);
  const iso = d.toISOString();
  const [y, mo, day, h, mi] = [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes()];
  switch (period) {
    case 'minute': return { id: `minute:${iso.slice(0, 16)}`, start: Date.UTC(y, mo, day, h, mi), end: Date.UTC(y, mo, day, h, mi + 1) };
    case 'hour': return { id: `hour:${iso.slice(0, 13)}`, start: Date.UTC(y, mo, day, h), end: Date.UTC(y, mo, day, h + 1) };
    case 'day': return { id: `day:${iso.slice(0, 10)}`, start: Date.UTC(y, mo, day), end: Date.UTC(y, mo, day + 1) };
    case 'month': return { id: `month:${iso.slice(0, 7)}`, start: Date.UTC(y, mo, 1), end: Date.UTC(y, mo + 1, 1) };
  }
}
