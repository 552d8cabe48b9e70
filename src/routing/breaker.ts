import type { RoutingPolicy } from './policy.js';

/**
 * Circuit breaker of one upstream, as plain data: `failures` in a row since `firstFailureAt`;
 * `openedAt` once they reached the threshold within the window; `probeAt` while the one probe
 * allowed after the cooldown is in flight. The memory and Redis stores apply these same rules.
 */
export interface BreakerState {
  readonly failures: number;
  readonly firstFailureAt: number;
  readonly openedAt?: number;
  readonly probeAt?: number;
}

/** May a call go to the upstream: yes (`closed`), no (`open`), or as the one probe (`probe`). */
export type BreakerVerdict = 'closed' | 'open' | 'probe';

/** The clean state: no failures. */
export const CLOSED: BreakerState = Object.freeze({ failures: 0, firstFailureAt: 0 });

/**
 * Decides whether a call may go. After the cooldown exactly one probe is let through (its
 * claim is the returned state); others are refused until the probe ends or a cooldown passes
 * without an answer (a lost probe never blocks the upstream forever).
 */
export function checkBreaker(state: BreakerState, now: number, policy: RoutingPolicy['breaker']): { verdict: BreakerVerdict; next: BreakerState } {
  if (state.openedAt === undefined) return { verdict: 'closed', next: state };
  if (now - state.openedAt < policy.cooldownMs) return { verdict: 'open', next: state };
  if (state.probeAt !== undefined && now - state.probeAt < policy.cooldownMs) return { verdict: 'open', next: state };
  return { verdict: 'probe', next: { ...state, probeAt: now } };
}

/**
 * Applies an attempt's outcome: a success closes; a failure of a probe (or of any call while
 * open) re-opens for another cooldown; otherwise failures count up within the window and open
 * the breaker at the threshold.
 */
export function recordBreaker(state: BreakerState, ok: boolean, now: number, policy: RoutingPolicy['breaker']): BreakerState {
  if (ok) return CLOSED;
  if (state.openedAt !== undefined) return { failures: state.failures + 1, firstFailureAt: state.firstFailureAt, openedAt: now };
  const fresh = state.failures === 0 || now - state.firstFailureAt > policy.windowMs;
  const failures = fresh ? 1 : state.failures + 1;
  const firstFailureAt = fresh ? now : state.firstFailureAt;
  return failures >= policy.failures ? { failures, firstFailureAt, openedAt: now } : { failures, firstFailureAt };
}

/**
 * Milliseconds until the breaker lets a call through again: 0 when closed or due for its probe;
 * while a probe is in flight, until that probe's own cooldown ends. Used to pick, among targets
 * that are all open, the one whose cooldown ends first.
 */
export function cooldownLeftMs(state: BreakerState, now: number, policy: RoutingPolicy['breaker']): number {
  if (state.openedAt === undefined) return 0;
  const until = Math.max(state.openedAt, state.probeAt ?? 0) + policy.cooldownMs;
  return Math.max(0, until - now);
}
