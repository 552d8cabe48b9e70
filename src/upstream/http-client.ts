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

// Moved to src/errors/ (one catalog, one mapping table); re-exported for existing importers.
export { upstreamFailure, firstHeader } from '../errors/upstream-failure.js';
export { redactSecrets } from '../errors/redact.js';
