/**
 * How one upstream call failed, as the HTTP client reports it (the routing loop classifies it:
 * routing/outcome.ts, routing/retry.ts). `status` is an HTTP error answer; the other kinds are
 * transport failures (`reset`: the connection broke after it was made; `aborted`: the client
 * went away, never retried).
 */
export type UpstreamFailure =
  | { readonly kind: 'status'; readonly status: number; readonly headers: Readonly<Record<string, string | string[] | undefined>> }
  | { readonly kind: 'connect_error' | 'reset' | 'aborted' }
  | { readonly kind: 'timeout'; readonly phase: 'connect' | 'first_byte' | 'idle' | 'total' };
