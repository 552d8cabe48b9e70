import type { SpendHold } from '../billing/spend-hold.js';
import { isGatewayError } from '../errors/gateway-error.js';
import type { BreakerStore } from '../routing/breaker-store.js';
import type { LatencyTracker } from '../routing/latency.js';
import type { AttemptReport, Routed } from '../routing/run-routed.js';
import type { RequestEvents } from './request-record.js';
import type { GatewayState } from './state.js';

/** The process-wide state the routing loop uses (SharedServices provides it). */
export interface RoutingServices {
  breaker: BreakerStore;
  latency: LatencyTracker;
  events: RequestEvents;
}

/** The loop's services for one request: breaker, latency, abort signal and attempt records. */
export function routingLoopServices(gw: GatewayState, services: RoutingServices): {
  breaker: BreakerStore; latency: LatencyTracker; signal: AbortSignal; onAttempt: (r: AttemptReport) => void;
} {
  let n = 0;
  return {
    breaker: services.breaker,
    latency: services.latency,
    signal: gw.abort.signal,
    onAttempt: (r) => {
      n++;
      services.events.emitAttempt({
        requestId: gw.requestId, attempt: n, model: r.target, provider: r.provider, upstream: r.upstream,
        startedAt: r.startedAt, durationMs: r.durationMs, outcome: r.outcome, ttfbMs: r.ttfbMs, retried: r.retried,
      });
    },
  };
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
