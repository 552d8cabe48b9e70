import type { SpendHold } from '../billing/spend-hold.js';
import { isGatewayError } from '../errors/gateway-error.js';
import type { BreakerStore } from '../routing/breaker-store.js';
import type { LatencyTracker } from '../routing/latency.js';
import { runHedged } from '../routing/run-hedged.js';
import type { AttemptReport, RoutedCall, Routed } from '../routing/run-routed.js';
import type { RoutingTarget } from '../routing/targets.js';
import type { ModelEntry } from '../compile/runtime.js';
import type { RequestEvents } from './request-record.js';
import type { GatewayState } from './state.js';

/** The process-wide state the routing loop uses (SharedServices provides it). */
export interface RoutingServices {
  breaker: BreakerStore;
  latency: LatencyTracker;
  events: RequestEvents;
}

/**
 * The routing loop's attempt listener for one request: each attempt it reports becomes one
 * AttemptRecord, numbered within the request.
 */
export function attemptReporter(gw: GatewayState, events: RequestEvents): (r: AttemptReport) => void {
  let n = 0;
  return (r) => {
    n++;
    if (r.forced) gw.record.breakerForced = true;
    events.emitAttempt({
      requestId: gw.requestId, attempt: n, model: r.target, provider: r.provider, upstream: r.upstream,
      startedAt: r.startedAt, durationMs: r.durationMs, outcome: r.outcome, ttfbMs: r.ttfbMs, retried: r.retried, forced: r.forced,
    });
  };
}

/** What a route gives the routing loop: how to make a target ready, try it and drop a losing answer. */
export interface RoutingSteps<P, T> {
  prepare: RoutedCall<ModelEntry, P, T>['prepare'];
  attempt: RoutedCall<ModelEntry, P, T>['attempt'];
  discard: NonNullable<RoutedCall<ModelEntry, P, T>['discard']>;
}

/**
 * Runs the routing loop (hedged when `hedgeAfterMs` is set) for one request with the process's
 * breaker and latency, the request's abort signal, one attempt record per upstream call and
 * budget-refused targets skipped with their hold released; then fills the request record with
 * who answered. Upstream calls are counted as they are made, so a request that fails still
 * reports them.
 */
export async function runRoutingLoop<P extends { readonly entry: ModelEntry; readonly hold: SpendHold }, T>(
  gw: GatewayState,
  services: RoutingServices,
  targets: ReadonlyArray<RoutingTarget<ModelEntry>>,
  steps: RoutingSteps<P, T>,
  hedgeAfterMs: number | undefined,
): Promise<Routed<ModelEntry, P, T>> {
  const record = gw.record;
  const stats = { calls: 0 };
  // One object literal with every field named (no spread, no `.finally`): this runs once per
  // request, and a spread into a fresh literal plus a finally chain cost several microseconds.
  const call: RoutedCall<ModelEntry, P, T> = {
    breaker: services.breaker,
    latency: services.latency,
    signal: gw.abort,
    onAttempt: attemptReporter(gw, services.events),
    stats,
    targets,
    prepare: steps.prepare,
    isBudgetError,
    release: releaseHold,
    attempt: steps.attempt,
    discard: steps.discard,
  };
  let routed: Routed<ModelEntry, P, T>;
  try {
    routed = await runHedged<ModelEntry, P, T>(call, hedgeAfterMs);
  } finally {
    record.attempts = stats.calls;
  }
  const entry = routed.prepared.entry;
  record.model = entry.spec.id;
  record.provider = entry.provider.name;
  record.upstream = routed.upstream.name;
  record.attempts = routed.calls;
  record.fallbackReason = routed.fallbackReason;
  if (routed.target !== targets[0]) record.requestedModel = String(gw.body.model);
  return routed;
}

/** Whether a target's budget check refused it (it is skipped with reason `budget`). */
export function isBudgetError(e: unknown): boolean {
  return isGatewayError(e) && (e.code === 'budget_exceeded' || e.code === 'budget_exhausted');
}

/** Releases the key hold of a target that did not answer. */
export function releaseHold(prepared: { hold: SpendHold }): Promise<void> {
  return prepared.hold.settle(0, 0);
}

/** The headers that say who answered: model, provider, upstream calls made, why not the first choice. */
export function routingHeaders(routed: Routed<{ spec: { id: string }; provider: { name: string } }, unknown, unknown>, dropped: readonly string[]): Record<string, string> {
  const entry = routed.target.entry;
  const headers: Record<string, string> = {
    'x-gateway-model': entry.spec.id,
    'x-gateway-provider': entry.provider.name,
    'x-gateway-attempts': String(routed.calls),
  };
  if (routed.fallbackReason) headers['x-gateway-fallback-reason'] = routed.fallbackReason;
  if (dropped.length > 0) headers['x-gateway-dropped-params'] = dropped.join(',');
  return headers;
}
