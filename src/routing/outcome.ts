import type { UpstreamFailure } from '../upstream/upstream-failure.js';

/**
 * What one upstream attempt came to, as the routing loop reasons about it: the raw outcome the
 * HTTP client reports (an HTTP error answer or a transport failure, upstream/upstream-failure.ts),
 * or a target the loop skipped without a call.
 */
export type AttemptFailure =
  | UpstreamFailure
  /** Skipped without a call: its breaker is open, or its price does not fit the budget. */
  | { readonly kind: 'breaker_open' | 'budget' };

/** The short reason a failure is reported under (`x-gateway-fallback-reason`, attempt records). */
export function reasonOf(failure: AttemptFailure): string {
  return failure.kind === 'status' ? String(failure.status) : failure.kind;
}
