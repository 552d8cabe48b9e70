import type { IncomingHttpHeaders } from 'node:http';

/** Hop-by-hop headers (RFC 9110 7.6.1) plus the proxy ones: they describe one connection, never forwarded. */
const HOP_BY_HOP: ReadonlySet<string> = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'upgrade', 'expect']);

/**
 * Credential headers: the client's gateway key (`authorization`, `x-api-key`) and any provider
 * key header a client might add (`x-goog-api-key`, `api-key`). None is sent as the client wrote
 * it: the provider sees only the credentials the gateway puts on.
 */
const CLIENT_CREDENTIALS: readonly string[] = ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key'];

/**
 * The headers of a forwarded request, built from the client's: hop-by-hop headers and those
 * the client's `Connection` names dropped, the client's gateway key removed (the provider's
 * credentials are set over these), the provider's extra headers added where the client sent none,
 * and the gateway's request id forwarded. `transfer-encoding` stays: it says how the body,
 * streamed as it arrives, is framed. `Host` is set by the proxy (the upstream's).
 */
export function forwardedHeaders(
  client: IncomingHttpHeaders,
  providerHeaders: Readonly<Record<string, string>>,
  requestId: string,
): IncomingHttpHeaders {
  const named = String(client.connection ?? '').toLowerCase().split(',').map((t) => t.trim()).filter(Boolean);
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(client)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.includes(name) || CLIENT_CREDENTIALS.includes(name)) continue;
    out[name] = value;
  }
  for (const [name, value] of Object.entries(providerHeaders)) if (out[name] === undefined) out[name] = value;
  out['x-request-id'] = requestId;
  return out;
}

/**
 * Answer headers as the client gets them: hop-by-hop ones dropped (the proxy frames the body
 * itself) and the provider's request id kept as `x-upstream-request-id`, since `x-request-id`
 * is the gateway's (the id of the access log line and the ledger row).
 */
export function answerHeaders(upstream: IncomingHttpHeaders): void {
  const named = String(upstream.connection ?? '').toLowerCase().split(',').map((t) => t.trim()).filter(Boolean);
  for (const name of [...HOP_BY_HOP, ...named]) delete upstream[name];
  const upstreamId = upstream['x-request-id'];
  delete upstream['x-request-id'];
  if (upstreamId !== undefined) upstream['x-upstream-request-id'] = upstreamId;
}
