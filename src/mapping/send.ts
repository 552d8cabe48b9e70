import type { OperationCall } from '../providers/types.js';
import { sendUpstream, type UpstreamResponse } from '../upstream/http-client.js';
import { MediaValue } from './media.js';
import type { BuiltRequest } from './request.js';

/** How a built body goes on the wire. */
export type BodyEncoding = 'json' | 'multipart';

/**
 * Encodes a body as multipart/form-data: media become file parts (name, type, bytes), arrays
 * repeated `key[]` parts (openai-node's convention; `repeat` sends plain `key`), objects
 * `key[sub]` parts, other values their text. Serialized by Node's own FormData encoder, so the
 * boundary and escaping are the standard ones.
 */
export async function encodeMultipart(body: Record<string, unknown>, arrays: 'brackets' | 'repeat' = 'brackets'): Promise<{ bytes: Uint8Array; contentType: string }> {
  const form = new FormData();
  const append = (name: string, value: unknown): void => {
    if (value === undefined || value === null) return;
    if (value instanceof MediaValue) {
      form.append(name, new Blob([value.bytes as Uint8Array<ArrayBuffer>], { type: value.contentType }), value.filename);
    } else if (Array.isArray(value)) {
      for (const item of value) append(arrays === 'brackets' ? `${name}[]` : name, item);
    } else if (typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) append(`${name}[${k}]`, v);
    } else {
      form.append(name, String(value));
    }
  };
  for (const [k, v] of Object.entries(body)) append(k, v);
  const encoded = new Response(form);
  return { bytes: new Uint8Array(await encoded.arrayBuffer()), contentType: encoded.headers.get('content-type')! };
}

/**
 * Puts the deployment's cloud credentials (bearer token, `api-key`, SigV4 signature) on a
 * finished request, when the provider has an `auth` block that needs it. Returns a promise only
 * when there is something to wait for (a credential not cached yet), so the common call awaits nothing.
 */
export function authorizeCall(call: OperationCall, url: string, method: string, headers: Record<string, string>, body?: string | Uint8Array): void | Promise<void> {
  return call.access?.authorizer?.authorize({ method, url, headers, body }, call.trace);
}

/** Sends a built request with its body encoded; the answer's status is not checked here. */
export async function sendBuilt(req: BuiltRequest, call: OperationCall, encoding: BodyEncoding, options: { timeoutMs?: number; arrays?: 'brackets' | 'repeat'; accept?: string } = {}): Promise<UpstreamResponse> {
  const headers: Record<string, string> = { accept: options.accept ?? 'application/json', ...req.headers };
  if (call.requestId) headers['x-request-id'] = call.requestId;
  let payload: Uint8Array | string | undefined;
  if (req.body !== undefined && req.method !== 'GET') {
    if (encoding === 'multipart') {
      const form = await encodeMultipart(req.body, options.arrays);
      payload = form.bytes;
      headers['content-type'] = form.contentType;
    } else {
      payload = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
    }
  }
  const authorizing = authorizeCall(call, req.url, req.method, headers, payload);
  if (authorizing) await authorizing;
  return sendUpstream({
    provider: call.providerName,
    url: req.url,
    method: req.method,
    headers,
    body: payload,
    signal: call.signal,
    timeoutMs: options.timeoutMs ?? call.timeoutMs,
    // A mapping's own `timeout_ms` stands for its first-byte and idle deadlines.
    timeouts: call.timeouts && options.timeoutMs ? { ...call.timeouts, firstByteMs: options.timeoutMs, idleMs: options.timeoutMs } : call.timeouts,
    trace: call.trace,
  });
}
