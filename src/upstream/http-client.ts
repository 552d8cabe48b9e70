import { Agent, errors as undiciErrors, request, type Dispatcher } from 'undici';
import { GatewayError, errors } from '../errors/gateway-error.js';

/** One keep-alive connection pool for every upstream call of the process. */
const agent = new Agent({ connections: 256, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, pipelining: 1 });

export interface UpstreamRequest {
  provider: string;
  url: string;
  method?: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: string | Uint8Array | Buffer;
  /** Aborted when the client goes away: the upstream request is cancelled too. */
  signal: AbortSignal;
  timeoutMs: number;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

/**
 * Sends one upstream request. Connection failures become 502 `upstream_unreachable`; no
 * headers within the timeout becomes 504 `upstream_timeout`. The body is not read here, so
 * streams flow through unbuffered.
 */
export async function sendUpstream(req: UpstreamRequest): Promise<UpstreamResponse> {
  try {
    const res = await request(req.url, {
      method: req.method ?? 'POST',
      headers: req.headers,
      body: req.body,
      signal: req.signal,
      dispatcher: agent,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  } catch (e) {
    throw mapTransportError(e, req);
  }
}

/** Maps an undici failure to the gateway's error set (client aborts pass through unchanged). */
export function mapTransportError(e: unknown, req: Pick<UpstreamRequest, 'provider' | 'timeoutMs' | 'signal'>): Error {
  if (e instanceof GatewayError) return e;
  if (req.signal.aborted) return e instanceof Error ? e : new Error('aborted');
  if (e instanceof undiciErrors.HeadersTimeoutError || e instanceof undiciErrors.BodyTimeoutError || e instanceof undiciErrors.ConnectTimeoutError) {
    return errors.upstreamTimeout(req.provider, req.timeoutMs);
  }
  return errors.upstreamUnreachable(req.provider);
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
