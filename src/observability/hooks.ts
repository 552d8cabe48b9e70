/**
 * What the rest of the gateway may tell observability besides request lifecycle events: state
 * that is not per request. A plain interface (no prom-client or OpenTelemetry types), so the
 * routing and store modules can call it without importing either library.
 */
export interface ObservabilityHooks {
  /** A circuit breaker of one provider upstream changed state. */
  breakerStateChanged(provider: string, upstream: string, state: BreakerState): void;
  /** A shared-store call failed (the store's name, e.g. `redis`). */
  storeError(store: string): void;
}

/** Circuit breaker states, as the `gateway_breaker_state` gauge encodes them (0, 1, 2). */
export type BreakerState = 'closed' | 'half_open' | 'open';

