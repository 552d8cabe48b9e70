import { GatewayError, errors } from '../errors/gateway-error.js';
import type { UpstreamFailure } from './upstream-failure.js';
import type { UpstreamHead } from './upstream-body.js';
import { callUpstream, classifyTransportError, type AttemptTimeouts, type UpstreamCall } from './call-upstream.js';

/** Connect deadline when a caller names only one timeout (the routing default). */
const DEFAULT_CONNECT_MS = 5000;

/**
 * One upstream request as callers that throw send it: an UpstreamCall named by its provider,
 * whose routing deadlines may be left out for a single first-byte and idle deadline.
 */
export interface UpstreamRequest extends Omit<UpstreamCall, 'timeouts'> {
  provider: string;
  /** First-byte and idle deadline when `timeouts` is not given (ms). */
  timeoutMs: number;
  /** The routing deadlines of this call (connect, first byte, idle). */
  timeouts?: AttemptTimeouts;
}

/** An upstream answer, any status, its body unread (upstream-body.ts). */
export type UpstreamResponse = UpstreamHead;

/**
 * Sends one upstream request through callUpstream and answers the way callers that throw
 * want: any HTTP answer is returned (its status is the caller's to check); a transport
 * failure throws the gateway's error (connect 502 `upstream_unreachable`, deadline 504
 * `upstream_timeout`; a client abort passes through).
 */
export async function sendUpstream(req: UpstreamRequest): Promise<UpstreamResponse> {
  // A request with its routing deadlines (every routed call) is already an UpstreamCall: sent as it is.
  const call: UpstreamCall = req.timeouts ? (req as UpstreamCall) : { ...req, timeouts: { connectMs: DEFAULT_CONNECT_MS, firstByteMs: req.timeoutMs, idleMs: req.timeoutMs } };
  const out = await callUpstream(call);
  if (out.ok) return out;
  throw failureError(out.failure, req.provider, call.timeouts, out.error);
}

/** The gateway error a transport failure is answered with. */
export function failureError(failure: UpstreamFailure, provider: string, timeouts: AttemptTimeouts | number, cause?: unknown): Error {
  const t = typeof timeouts === 'number' ? { connectMs: timeouts, firstByteMs: timeouts, idleMs: timeouts } : timeouts;
  switch (failure.kind) {
    case 'aborted': return cause instanceof Error ? cause : new Error('aborted');
    case 'timeout': {
      const ms = failure.phase === 'connect' ? t.connectMs : failure.phase === 'idle' ? t.idleMs : failure.phase === 'first_byte' ? t.firstByteMs : undefined;
      return ms === undefined
        ? new GatewayError(504, 'timeout_error', 'upstream_timeout', `Provider '${provider}' did not finish within the request's total deadline.`, { provider })
        : errors.upstreamTimeout(provider, ms);
    }
    // Before any answer a broken connection means the provider was not reached.
    case 'reset': return errors.upstreamUnreachable(provider);
    default: return errors.upstreamUnreachable(provider);
  }
}

/**
 * Maps a failure while reading an upstream body to the gateway's error set (client aborts pass
 * through unchanged) and leaves the typed failure in `trace` for the routing loop.
 */
export function mapTransportError(e: unknown, req: Pick<UpstreamRequest, 'provider' | 'timeoutMs' | 'signal' | 'timeouts' | 'trace'>): Error {
  if (e instanceof GatewayError) return e;
  const failure = classifyTransportError(e, req.signal);
  if (req.trace) req.trace.failure = failure;
  // The provider was reached and its answer started: a body that is not the JSON it should be
  // is an unreadable answer, a broken connection a cut one, never "unreachable".
  if (e instanceof SyntaxError) return errors.invalidUpstreamResponse(req.provider, 'an answer that is not JSON');
  if (failure.kind === 'reset') return errors.streamTruncated(req.provider, 'broke the connection before the answer was complete');
  return failureError(failure, req.provider, req.timeouts ?? req.timeoutMs, e);
}

/** Reads a whole upstream body as JSON when it is JSON, else as text. */
export async function readBody(res: UpstreamResponse): Promise<unknown> {
  const text = await res.body.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

// Moved to src/errors/ (one catalog, one mapping table); re-exported for existing importers.
export { upstreamFailure } from '../errors/upstream-failure.js';
export { redactSecrets } from '../errors/redact.js';
