import type { AttemptTrace } from '../upstream/call-upstream.js';
import type { CallSignal } from '../upstream/request-abort.js';
import type { BreakerStore } from './breaker-store.js';
import type { LatencyTracker } from './latency.js';
import type { RoutingTarget, UpstreamRef } from './targets.js';

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
  /**
   * Sent through an open breaker because every target the request could still try was open
   * (`when_all_open: try`): the half-open probe of the upstream whose cooldown ended first.
   */
  forced: boolean;
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
  /**
   * Other targets follow outside this loop (the first side of a hedged call): a target whose
   * upstreams are all open is skipped even when it is the last one here.
   */
  alternativesFollow?: boolean;
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
