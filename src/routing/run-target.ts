import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { TOTAL_DEADLINE, type AttemptTrace } from '../upstream/call-upstream.js';
import { abortSignalOf, type CallSignal } from '../upstream/request-abort.js';
import { countsAsBreakerFailure, soonestToReopen } from './all-open.js';
import type { BudgetSkip } from './budget-skips.js';
import { reasonOf, type AttemptFailure } from './outcome.js';
import { chooseUpstream } from './pick.js';
import { decideNext } from './retry.js';
import type { RoutedCall, Routed } from './routed-call.js';
import type { RoutingTarget, UpstreamRef } from './targets.js';

/** What one request's loop carries from target to target. */
export interface LoopState {
  readonly stats: { calls: number };
  /** Reason of the first failure (`x-gateway-fallback-reason`). */
  firstReason?: string;
  /** The last attempt's error: what the client gets when nothing answers. */
  lastError?: unknown;
  /** Targets skipped because they could not fit the budget (named in the final error; the first one's error answers when nothing else failed). */
  budgetSkips?: BudgetSkip[];
}

/** One target's progress, kept when it is set aside as all open and resumed later. */
export interface TargetRun<E> {
  readonly target: RoutingTarget<E>;
  /** Attempts made so far (a resumed target continues its count, as if it had never paused). */
  attempt: number;
  readonly tried: Set<string>;
}

/**
 * How a target ended without answering: `exhausted` (attempts used up, skipped for budget, or
 * moved on), or `all_open` (every upstream open while skipping open ones was allowed).
 */
export type TargetEnd = 'exhausted' | 'all_open';

/**
 * Tries one target: up to `retry.attempts` attempts, each to an upstream of its provider whose
 * breaker lets it through. With `skipOpen`, a target whose upstreams are all open ends as
 * `all_open` (the caller has other targets to try first); without, the upstream whose cooldown
 * ends first is called as if closed, counted as its probe (`forced` in its attempt report).
 * Returns the answer, or how it ended; throws the error to answer when the loop must stop.
 */
export async function runTarget<E, P, T>(call: RoutedCall<E, P, T>, loop: LoopState, run: TargetRun<E>, skipOpen: boolean): Promise<Routed<E, P, T> | TargetEnd> {
  const { target } = run;
  let prepared: P;
  try {
    prepared = await call.prepare(target);
  } catch (e) {
    if (!call.isBudgetError?.(e)) throw e;
    loop.firstReason ??= 'budget';
    (loop.budgetSkips ??= []).push({ model: target.id, error: e });
    return 'exhausted';
  }
  const open = new Set<string>();
  let answered = false;
  try {
    for (;;) {
      const next = nextUpstream(call, target, run.tried, open);
      // The breaker answers from memory on the happy path: no await (a microtask turn) then.
      let upstream = next instanceof Promise ? await next : next;
      const forced = !upstream;
      if (!upstream) {
        if (skipOpen) return 'all_open';
        upstream = (await soonestOf(call, target))?.upstream;
        if (!upstream) return 'exhausted';
      }
      run.tried.add(upstream.key);
      run.attempt++;
      const trace: AttemptTrace = { calls: 0, total: loop.stats };
      const startedAt = Date.now();
      let failure: AttemptFailure;
      try {
        const value = await call.attempt(target, prepared, upstream, trace, call.signal);
        const ttfb = trace.firstByteAt !== undefined ? trace.firstByteAt - startedAt : undefined;
        if (ttfb !== undefined) call.latency?.observe(target.id, ttfb);
        if (trace.calls > 0) {
          void call.breaker.record(upstream.key, true, target.policy.breaker);
          call.onAttempt?.({ target: target.id, provider: target.provider, upstream: upstream.name, startedAt, durationMs: Date.now() - startedAt, outcome: 'ok', ttfbMs: ttfb, retried: false, forced });
        }
        answered = true;
        return { value, target, prepared, upstream, calls: loop.stats.calls, fallbackReason: loop.firstReason };
      } catch (e) {
        failure = trace.failure ?? classifyError(e, call.signal);
        loop.lastError = e;
      }
      if (failure.kind !== 'aborted' && trace.calls > 0) void call.breaker.record(upstream.key, !countsAsBreakerFailure(failure), target.policy.breaker);
      loop.firstReason ??= reasonOf(failure);
      const step = decideNext(failure, run.attempt, target.policy, call.random);
      if (trace.calls > 0) {
        call.onAttempt?.({ target: target.id, provider: target.provider, upstream: upstream.name, startedAt, durationMs: Date.now() - startedAt, outcome: reasonOf(failure), ttfbMs: undefined, retried: step.action !== 'stop', forced });
      }
      if (step.action === 'stop') throw loop.lastError;
      if (step.action === 'next_target') return 'exhausted';
      if (step.delayMs > 0) {
        try {
          await sleep(step.delayMs, undefined, { signal: abortSignalOf(call.signal) });
        } catch {
          throw call.signal.reason === TOTAL_DEADLINE ? totalDeadline() : loop.lastError;
        }
      }
    }
  } finally {
    if (!answered) await call.release?.(prepared);
  }
}

/**
 * The next upstream to call for a target, asking the breaker; undefined when all are open.
 * Synchronous while the breaker answers synchronously (memory, or Redis within its trust window).
 */
function nextUpstream<E, P, T>(call: RoutedCall<E, P, T>, target: RoutingTarget<E>, tried: Set<string>, open: Set<string>): UpstreamRef | undefined | Promise<UpstreamRef | undefined> {
  for (;;) {
    const u = chooseUpstream(target.upstreams, tried, open, call.random);
    if (!u) return undefined;
    const verdict = call.breaker.check(u.key, target.policy.breaker);
    if (typeof verdict !== 'string') return verdict.then((v) => (v !== 'open' ? u : (open.add(u.key), nextUpstream(call, target, tried, open))));
    if (verdict !== 'open') return u;
    open.add(u.key);
  }
}

/** The upstream of a target whose cooldown ends first, with how long until then (undefined: it has none). */
export async function soonestOf<E, P, T>(call: RoutedCall<E, P, T>, target: RoutingTarget<E>): Promise<{ upstream: UpstreamRef; leftMs: number } | undefined> {
  const left = await Promise.all(target.upstreams.map(async (upstream) => ({ upstream, leftMs: await call.breaker.cooldownLeftMs(upstream.key, target.policy.breaker) })));
  return soonestToReopen(left);
}

/** A failure that was not an upstream call's (e.g. an answer the codec cannot read). */
function classifyError(e: unknown, signal: CallSignal): AttemptFailure {
  if (signal.aborted) return signal.reason === TOTAL_DEADLINE ? { kind: 'timeout', phase: 'total' } : { kind: 'aborted' };
  if (isGatewayError(e)) return { kind: 'status', status: e.status, headers: {} };
  throw e;
}

/** 504 when the request's total deadline passed before any target answered. */
export function totalDeadline(): GatewayError {
  return new GatewayError(504, 'timeout_error', 'upstream_timeout', 'No upstream answered within the request\'s total deadline (routing.timeouts.total_ms).');
}
