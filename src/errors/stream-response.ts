/**
 * Upstream answer failures that are not the provider's own error events: a 200 whose body is
 * not an event stream (or not JSON), and a connection that breaks after the answer started.
 * Both are failures of that answer (502 `invalid_upstream_response` /
 * `upstream_stream_truncated`), not "upstream unreachable": the provider was reached.
 */
import { errors, type GatewayError } from './gateway-error.js';

/**
 * The error for a 2xx stream answer whose content type is not `text/event-stream` (a proxy's
 * HTML page, a JSON body from a server that ignored `stream: true`), else undefined.
 */
export function classifyStreamContentType(provider: string, contentType: string | undefined): GatewayError | undefined {
  const type = contentType ?? '';
  if (/^\s*text\/event-stream\b/i.test(type)) return undefined;
  return errors.invalidUpstreamResponse(provider, `a stream answer of content type '${type.split(';')[0]?.trim() || 'none'}' instead of text/event-stream`);
}
