/**
 * What one upstream attempt came to, as the routing loop reasons about it. `status` is an
 * HTTP error answer; the other kinds are transport failures (`reset`: the connection broke
 * after it was made; `aborted`: the client went away, never retried).
 */
export type AttemptFailure =
  | { readonly kind: 'status'; readonly status: number; readonly headers: Readonly<Record<string, string | string[] | undefined>> }
  | { readonly kind: 'connect_error' | 'reset' | 'aborted' }
  | { readonly kind: 'timeout'; readonly phase: 'connect' | 'first_byte' | 'idle' | 'total' }
  /** Skipped without a call: its breaker is open, or its price does not fit the budget. */
  | { readonly kind: 'breaker_open' | 'budget' };

/** The short reason a failure is reported under (`x-gateway-fallback-reason`, attempt records). */
export function reasonOf(failure: AttemptFailure): string {
  return failure.kind === 'status' ? String(failure.status) : failure.kind;
}
