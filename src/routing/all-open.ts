import { GatewayError } from '../errors/gateway-error.js';
import type { AttemptFailure } from './outcome.js';
import type { RoutingPolicy } from './policy.js';
import { retryAfterMs } from './retry.js';

/**
 * Pure decisions about open breakers (issue 27): a breaker steers traffic between alternatives,
 * it never turns a model off. The routing loop (run-routed.ts) applies them.
 */

/**
 * Whether a failed attempt counts against its upstream's health: only upstream faults do (5xx
 * and 529, 408 and timeouts, connection errors and resets, unreadable answers, which reach the
 * loop as a 502). The request's or the operator's faults (400, 401, 403, 404, 413, 422, any
 * other 4xx) never do; a 429 does only when the provider named no wait (`Retry-After` /
 * `retry-after-ms`), since a rate limit with a wait is the provider pacing one key, not failing.
 */
export function countsAsBreakerFailure(f: AttemptFailure): boolean {
  switch (f.kind) {
    case 'status':
      if (f.status === 429) return retryAfterMs(f.headers) === undefined;
      return f.status >= 500 || f.status === 408;
    case 'connect_error': case 'reset': case 'timeout': return true;
    default: return false;
  }
}

/** One target the loop found with every upstream open, with the soonest end of their cooldowns. */
export interface OpenTarget<T> {
  readonly target: T;
  readonly policy: RoutingPolicy;
  /** Milliseconds until the first of its upstreams' cooldowns ends. */
  readonly leftMs: number;
}

/** What to do with an open target once nothing else can be tried. */
export type AllOpenStep<T> =
  | { readonly action: 'try'; readonly target: T }
  | { readonly action: 'refuse'; readonly target: T; readonly leftMs: number };

/**
 * The order in which targets that are all open are taken once no closed target is left: the
 * one whose cooldown ends first goes first (it is the likeliest to have recovered), ties keep
 * the request's order. Each is tried as if closed (`when_all_open: try`, counted as its
 * half-open probe) or refused (`refuse`, answered with upstream_circuit_open).
 */
export function planAllOpen<T>(open: ReadonlyArray<OpenTarget<T>>): Array<AllOpenStep<T>> {
  const ranked = open.map((o, i) => ({ o, i })).sort((a, b) => a.o.leftMs - b.o.leftMs || a.i - b.i);
  return ranked.map(({ o }) => (o.policy.breaker.whenAllOpen === 'refuse'
    ? { action: 'refuse', target: o.target, leftMs: o.leftMs }
    : { action: 'try', target: o.target }));
}

/** The upstream whose cooldown ends first (the first listed on a tie); undefined for none. */
export function soonestToReopen<U>(upstreams: ReadonlyArray<{ readonly upstream: U; readonly leftMs: number }>): { upstream: U; leftMs: number } | undefined {
  let best: { upstream: U; leftMs: number } | undefined;
  for (const u of upstreams) if (!best || u.leftMs < best.leftMs) best = u;
  return best;
}

/** Whole seconds of a `Retry-After` for a wait of `ms` (at least 1: 0 would invite a hot loop). */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * 503 `upstream_circuit_open` for a target refused under `when_all_open: refuse`, with
 * `Retry-After` the seconds until its first cooldown ends.
 */
export function breakerOpen(model: string, leftMs: number): GatewayError {
  const seconds = retryAfterSeconds(leftMs);
  return new GatewayError(
    503, 'api_error', 'upstream_circuit_open',
    `Every upstream of '${model}' is failing and its circuit breaker is open (routing.breaker.when_all_open: refuse). Retry in ${seconds} s.`,
    { model, retry_after_seconds: seconds },
    { 'Retry-After': String(seconds) },
  );
}
