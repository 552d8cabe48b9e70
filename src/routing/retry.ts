import type { AttemptFailure } from './outcome.js';
import type { RoutingPolicy } from './policy.js';

/** Statuses that say the request itself is wrong: never retried, never sent to a fallback. */
const CLIENT_FAULT = new Set([400, 404, 413, 422]);
/** Statuses never retried on the same target (issue 9), whatever `retry.on` says. */
const NEVER_RETRIED = new Set([400, 401, 403, 404, 422]);

/** What the loop does after a failed attempt. */
export type NextStep =
  | { readonly action: 'retry'; readonly delayMs: number }
  | { readonly action: 'next_target' }
  | { readonly action: 'stop' };

/** Whether a failure is one `retry.on` lists. */
export function isRetryable(failure: AttemptFailure, policy: RoutingPolicy): boolean {
  switch (failure.kind) {
    case 'status': return !NEVER_RETRIED.has(failure.status) && policy.retry.onStatus.has(failure.status);
    case 'connect_error': case 'reset': return policy.retry.onConnectError;
    case 'timeout': return policy.retry.onTimeout && failure.phase !== 'total';
    default: return false;
  }
}

/**
 * Decides after attempt number `attempt` (1-based) of one target failed: retry it (after a
 * backoff or the upstream's Retry-After), move to the next target, or stop and answer the
 * failure. A Retry-After longer than `retry_after_max_s` moves on at once; the client's own
 * mistakes (400/404/413/422), a client abort and the total deadline stop everything.
 */
export function decideNext(failure: AttemptFailure, attempt: number, policy: RoutingPolicy, random: () => number = Math.random, now = Date.now()): NextStep {
  if (failure.kind === 'aborted' || (failure.kind === 'timeout' && failure.phase === 'total')) return { action: 'stop' };
  if (failure.kind === 'status' && CLIENT_FAULT.has(failure.status)) return { action: 'stop' };
  if (failure.kind === 'breaker_open' || failure.kind === 'budget') return { action: 'next_target' };
  if (!isRetryable(failure, policy) || attempt >= policy.retry.attempts) return { action: 'next_target' };
  const after = failure.kind === 'status' ? retryAfterMs(failure.headers, now) : undefined;
  if (after !== undefined) return after > policy.retry.retryAfterMaxMs ? { action: 'next_target' } : { action: 'retry', delayMs: after };
  return { action: 'retry', delayMs: backoffMs(attempt, policy, random) };
}

/**
 * Exponential backoff with full jitter (AWS architecture blog): a uniform wait in
 * [0, min(max, initial * 2^(attempt-1))].
 */
export function backoffMs(attempt: number, policy: RoutingPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.retry.backoffMaxMs, policy.retry.backoffInitialMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * The wait an upstream asked for: `retry-after-ms` (OpenAI, milliseconds) first, then
 * `Retry-After` as seconds or an HTTP date (RFC 9110 10.2.3). Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Readonly<Record<string, string | string[] | undefined>>, now = Date.now()): number | undefined {
  const ms = first(headers['retry-after-ms']);
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.ceil(Number(ms));
  const v = first(headers['retry-after']);
  if (v === undefined) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Math.ceil(Number(v) * 1000);
  const date = Date.parse(v);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
