/**
 * Upstream answer failures that are not the provider's own error events: a 200 whose body is
 * not an event stream (or not JSON), and a connection that breaks after the answer started.
 * Both are failures of that answer (502 `invalid_upstream_response` /
 * `upstream_stream_truncated`), not "upstream unreachable": the provider was reached.
 */
import { errors as undiciErrors } from 'undici';
import { errors, isGatewayError, type GatewayError } from './gateway-error.js';
import { firstHeader } from './upstream-failure.js';

/**
 * The error for a 2xx stream answer whose content type is not `text/event-stream` (a proxy's
 * HTML page, a JSON body from a server that ignored `stream: true`), else undefined.
 */
export function classifyStreamContentType(provider: string, headers: Record<string, string | string[] | undefined>): GatewayError | undefined {
  const type = firstHeader(headers['content-type']) ?? '';
  if (/^\s*text\/event-stream\b/i.test(type)) return undefined;
  return errors.invalidUpstreamResponse(provider, `a stream answer of content type '${type.split(';')[0]?.trim() || 'none'}' instead of text/event-stream`);
}

/**
 * Maps an error thrown while reading an answer's body (after the headers arrived): a body
 * that is not the JSON it should be is an unreadable answer, a broken connection a cut answer,
 * never "unreachable". A client abort passes through unchanged (nobody is left to tell).
 */
export function mapBodyReadError(e: unknown, req: { provider: string; timeoutMs: number; signal: AbortSignal }): Error {
  if (isGatewayError(e)) return e;
  if (req.signal.aborted) return e instanceof Error ? e : new Error('aborted');
  if (e instanceof undiciErrors.BodyTimeoutError) return errors.upstreamTimeout(req.provider, req.timeoutMs);
  if (e instanceof SyntaxError) return errors.invalidUpstreamResponse(req.provider, 'an answer that is not JSON');
  return errors.streamTruncated(req.provider, 'broke the connection before the answer was complete');
}
