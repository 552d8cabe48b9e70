import { setTimeout as sleep } from 'node:timers/promises';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { TOTAL_DEADLINE, type AttemptTrace } from '../upstream/call-upstream.js';
import type { BreakerStore } from './breaker-store.js';
import type { LatencyTracker } from './latency.js';
import { reasonOf, type AttemptFailure } from './outcome.js';
import { chooseUpstream } from './pick.js';
import { decideNext } from './retry.js';
import type { RoutingTarget, UpstreamRef } from './targets.js';
import { abortSignalOf, type CallSignal } from '../upstream/request-abort.js';

/** One attempt as the loop reports it (the caller turns it into an AttemptRecord). */
export interface AttemptReport {
  target: string;
  provider: string;
  upstream: string;
  startedAt: number;
  durationMs: number;
  /** `ok`, or what failed: an HTTP status as text, `connect_error`, `timeout`, `reset`, `aborted`. */
  outcome: string;
  /** Milliseconds to the upstream's first byte, when one came. */
  ttfbMs?: number;
  /** Whether another attempt or fallback followed. */
  retried: boolean;
}

/** What the loop is given. `P` is a target's prepared call, `T` an attempt's answer. */
export interface RoutedCall<E, P, T> {
  targets: ReadonlyArray<RoutingTarget<E>>;
  breaker: BreakerStore;
  /** Aborted by the client or the total deadline: no more attempts. */
  signal: CallSignal;
  /**
   * Once per target before its first attempt (budgets at its own price). Throwing a
   * `budget`-classified error skips the target (reason `budget`); other errors stop the loop.
   */
  prepare(target: RoutingTarget<E>): Promise<P>;
  /**
   * One attempt; throws on failure, leaving the typed failure in `trace` when an upstream was
   * called. Its upstream calls use `signal` (the loop's: a hedged loop has its own).
   */
  attempt(target: RoutingTarget<E>, prepared: P, upstream: UpstreamRef, trace: AttemptTrace, signal: CallSignal): Promise<T>;
  /** An answer that lost a hedging race after it arrived: close it and release its hold. */
  discard?(value: T, prepared: P): Promise<void>;
  /** A prepared target that did not answer (release its reservation). */
  release?(prepared: P): Promise<void>;
  /** Whether an error thrown by `prepare` means "this target does not fit the budget". */
  isBudgetError?(e: unknown): boolean;
  onAttempt?(report: AttemptReport): void;
  latency?: LatencyTracker;
  random?: () => number;
  /** Counts upstream calls; shared by the two sides of a hedged call. */
  stats?: { calls: number };
}

/** The answer and how it was reached. */
export interface Routed<E, P, T> {
  value: T;
  target: RoutingTarget<E>;
  prepared: P;
  upstream: UpstreamRef;
  /** Upstream calls made, all targets included. */
  calls: number;
  /** Reason of the first failure, when the first try did not answer. */
  fallbackReason?: string;
}

/**
 * The retry and fallback loop: targets in order; per target up to `retry.attempts` tries, each
 * to a healthy upstream of its provider (weighted, another one on retry), skipping upstreams
 * whose breaker is open and targets that cannot fit the budget; waits by backoff or
 * Retry-After between tries. It only runs before anything reached the client: an attempt's
 * answer is handed back as soon as it is usable. Throws the error to answer when no target did.
 */
export async function runRouted<E, P, T>(call: RoutedCall<E, P, T>): Promise<Routed<E, P, T>> {
  const stats = call.stats ?? { calls: 0 };
  let firstReason: string | undefined;
  let lastError: unknown;
  let budgetError: unknown;
  const note = (reason: string) => { firstReason ??= reason; };
  for (const target of call.targets) {
    if (call.signal.aborted) {
      if (call.signal.reason === TOTAL_DEADLINE) throw totalDeadline();
      break;
    }
    let prepared: P;
    try {
      prepared = await call.prepare(target);
    } catch (e) {
      if (!call.isBudgetError?.(e)) throw e;
      budgetError ??= e;
      note('budget');
      continue;
    }
    const tried = new Set<string>();
    const open = new Set<string>();
    let attempt = 0;
    let answered = false;
    try {
      for (;;) {
        const next = nextUpstream(call, target, tried, open);
        // The breaker answers from memory on the happy path: no await (a microtask turn) then.
        const upstream = next instanceof Promise ? await next : next;
        if (!upstream) {
          note('breaker_open');
          lastError ??= breakerOpen(target.id);
          break;
        }
        tried.add(upstream.key);
        attempt++;
        const trace: AttemptTrace = { calls: 0, total: stats };
        const startedAt = Date.now();
        let failure: AttemptFailure;
        try {
          const value = await call.attempt(target, prepared, upstream, trace, call.signal);
          const ttfb = trace.firstByteAt !== undefined ? trace.firstByteAt - startedAt : undefined;
          if (ttfb !== undefined) call.latency?.observe(target.id, ttfb);
          if (trace.calls > 0) {
            void call.breaker.record(upstream.key, true, target.policy.breaker);
            call.onAttempt?.({ target: target.id, provider: target.provider, upstream: upstream.name, startedAt, durationMs: Date.now() - startedAt, outcome: 'ok', ttfbMs: ttfb, retried: false });
          }
          answered = true;
          return { value, target, prepared, upstream, calls: stats.calls, fallbackReason: firstReason };
        } catch (e) {
          failure = trace.failure ?? classifyError(e, call.signal);
          lastError = e;
        }
        if (failure.kind !== 'aborted' && trace.calls > 0) void call.breaker.record(upstream.key, !countsAgainstHealth(failure), target.policy.breaker);
        note(reasonOf(failure));
        const step = decideNext(failure, attempt, target.policy, call.random);
        if (trace.calls > 0) {
          call.onAttempt?.({ target: target.id, provider: target.provider, upstream: upstream.name, startedAt, durationMs: Date.now() - startedAt, outcome: reasonOf(failure), retried: step.action !== 'stop' });
        }
        if (step.action === 'stop') throw lastError;
        if (step.action === 'next_target') break;
        if (step.delayMs > 0) {
          try {
            await sleep(step.delayMs, undefined, { signal: abortSignalOf(call.signal) });
          } catch {
            throw call.signal.reason === TOTAL_DEADLINE ? totalDeadline() : lastError;
          }
        }
      }
    } finally {
      if (!answered) await call.release?.(prepared);
    }
  }
  throw lastError ?? budgetError ?? new GatewayError(502, 'upstream_error', 'upstream_unreachable', 'No upstream could answer.');
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

/** Failures that say the upstream is unhealthy (a 4xx only says the request was refused). */
function countsAgainstHealth(f: AttemptFailure): boolean {
  if (f.kind === 'status') return f.status >= 500 || f.status === 429 || f.status === 408;
  return f.kind === 'connect_error' || f.kind === 'timeout' || f.kind === 'reset';
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

/** 503 when every upstream of a target has its breaker open. */
export function breakerOpen(model: string): GatewayError {
  return new GatewayError(503, 'api_error', 'upstream_circuit_open', `Every upstream of '${model}' is failing; its circuit breaker is open. Retry shortly.`, { model }, { 'Retry-After': '5' });
}
