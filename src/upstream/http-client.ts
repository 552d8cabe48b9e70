import type { Dispatcher } from 'undici';
import { GatewayError, errors } from '../errors/gateway-error.js';
import type { AttemptFailure } from '../routing/outcome.js';
import { callUpstream, classifyTransportError, type AttemptTimeouts, type AttemptTrace } from './call-upstream.js';

/** Connect deadline when a caller names only one timeout (the routing default). */
const DEFAULT_CONNECT_MS = 5000;

export interface UpstreamRequest {
  provider: string;
  url: string;
  method?: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: string | Uint8Array | Buffer;
  /** Aborted when the client goes away: the upstream request is cancelled too. */
  signal: AbortSignal;
  /** First-byte and idle deadline when `timeouts` is not given (ms). */
  timeoutMs: number;
  /** The routing deadlines of this call (connect, first byte, idle). */
  timeouts?: AttemptTimeouts;
  /** Where the routing loop reads what happened. */
  trace?: AttemptTrace;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/**
 * Sends one upstream request through callUpstream and answers the way callers that throw
 * want: any HTTP answer is returned (its status is the caller's to check); a transport
 * failure throws the gateway's error (connect 502 `upstream_unreachable`, deadline 504
 * `upstream_timeout`; a client abort passes through).
 */
export async function sendUpstream(req: UpstreamRequest): Promise<UpstreamResponse> {
  const timeouts = req.timeouts ?? { connectMs: DEFAULT_CONNECT_MS, firstByteMs: req.timeoutMs, idleMs: req.timeoutMs };
  const out = await callUpstream({ url: req.url, method: req.method, headers: req.headers, body: req.body, signal: req.signal, timeouts, trace: req.trace });
  if (out.ok || out.status !== undefined) return { status: out.status, headers: out.headers, body: out.body };
  throw failureError(out.failure, req.provider, timeouts, out.error);
}

/** The gateway error a transport failure is answered with. */
export function failureError(failure: AttemptFailure, provider: string, timeouts: AttemptTimeouts | number, cause?: unknown): Error {
  const t = typeof timeouts === 'number' ? { connectMs: timeouts, firstByteMs: timeouts, idleMs: timeouts } : timeouts;
  switch (failure.kind) {
    case 'aborted': return cause instanceof Error ? cause : new Error('aborted');
    case 'timeout': {
      const ms = failure.phase === 'connect' ? t.connectMs : failure.phase === 'idle' ? t.idleMs : failure.phase === 'first_byte' ? t.firstByteMs : undefined;
      return ms === undefined
        ? new GatewayError(504, 'timeout_error', 'upstream_timeout', `Provider '${provider}' did not finish within the request's total deadline.`, { provider })
        : errors.upstreamTimeout(provider, ms);
    }
    case 'reset': return upstreamReset(provider);
    default: return errors.upstreamUnreachable(provider);
  }
}

/** 502 for a connection the upstream broke after it was made (mid-answer or mid-stream). */
export function upstreamReset(provider: string): GatewayError {
  return new GatewayError(502, 'upstream_error', 'upstream_connection_reset', `Provider '${provider}' closed the connection before its answer was complete.`, { provider });
}

/**
 * Maps a failure while reading an upstream body to the gateway's error set (client aborts pass
 * through unchanged) and leaves the typed failure in `trace` for the routing loop.
 */
export function mapTransportError(e: unknown, req: Pick<UpstreamRequest, 'provider' | 'timeoutMs' | 'signal' | 'timeouts' | 'trace'>): Error {
  if (e instanceof GatewayError) return e;
  const failure = classifyTransportError(e, req.signal);
  if (req.trace) req.trace.failure = failure;
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

const statusTypes: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error',
  409: 'conflict_error', 413: 'invalid_request_error', 422: 'invalid_request_error', 429: 'rate_limit_error',
};

/**
 * An upstream error answer as a GatewayError: 4xx (429 included) keep their status, 5xx
 * become 502; Retry-After is forwarded. The provider's message is kept; its key never is.
 */
export function upstreamFailure(
  provider: string,
  status: number,
  headers: UpstreamResponse['headers'],
  decoded: { message: string; type?: string; code?: string | null },
): GatewayError {
  const clientStatus = status >= 400 && status < 500 ? status : 502;
  const retryAfter = firstHeader(headers['retry-after']);
  const type = statusTypes[clientStatus] ?? (clientStatus >= 400 && clientStatus < 500 ? 'invalid_request_error' : 'upstream_error');
  const code = decoded.code ?? (clientStatus === 502 ? 'upstream_error' : `upstream_${status}`);
  return new GatewayError(
    clientStatus,
    type,
    code,
    `Provider '${provider}' answered ${status}: ${redactSecrets(decoded.message)}`,
    { provider, upstream_status: status, ...(decoded.type ? { upstream_type: decoded.type } : {}) },
    retryAfter ? { 'Retry-After': retryAfter } : undefined,
  );
}

/** First value of a possibly repeated header. */
export function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

// Provider messages sometimes quote the key they were sent (OpenAI: "Incorrect API key
// provided: sk-proj-****abcd"); nothing that looks like a credential reaches a client.
const CREDENTIAL = /\b(?:sk|pk|rk|ek|gsk|xai)[-_][-_A-Za-z0-9*]{4,}|\bAIza[-_A-Za-z0-9]{10,}|\bBearer\s+\S+/g;

/** Replaces anything that looks like an API key or bearer token with `[redacted]`. */
export function redactSecrets(text: string): string {
  return text.replace(CREDENTIAL, '[redacted]');
}
