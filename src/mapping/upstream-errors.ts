import { GatewayError } from '../errors/gateway-error.js';
import { mapTransportError, readBody, upstreamFailure, type UpstreamResponse } from '../upstream/http-client.js';
import type { OperationCall } from '../providers/types.js';

/**
 * The message, type and code of any provider's error body. Covers the shapes of the providers
 * the gateway maps: OpenAI/Mistral `{error: {message, type, code}}`, Google
 * `{error: {code: 400, message, status}}`, Cohere `{message}`, Voyage and Jina `{detail: "..."}`,
 * ElevenLabs `{detail: {status, message}}` and 422 `{detail: [{loc, msg}]}`, or plain text.
 */
export function decodeUpstreamError(status: number, body: unknown): { message: string; type?: string; code?: string | null } {
  if (typeof body === 'string') return { message: body.trim().slice(0, 500) || `HTTP ${status}` };
  if (!body || typeof body !== 'object') return { message: `HTTP ${status}` };
  const b = body as Record<string, unknown>;
  if (b.error && typeof b.error === 'object') {
    const e = b.error as Record<string, unknown>;
    return {
      message: typeof e.message === 'string' ? e.message : JSON.stringify(e).slice(0, 500),
      type: typeof e.type === 'string' ? e.type : typeof e.status === 'string' ? e.status : undefined,
      code: typeof e.code === 'string' ? e.code : null,
    };
  }
  if (typeof b.error === 'string') return { message: b.error };
  if (typeof b.detail === 'string') return { message: b.detail };
  if (Array.isArray(b.detail)) {
    const msgs = b.detail.map((d) => (d && typeof d === 'object' ? `${Array.isArray((d as { loc?: unknown }).loc) ? `${((d as { loc: unknown[] }).loc).join('.')}: ` : ''}${String((d as { msg?: unknown }).msg ?? JSON.stringify(d))}` : String(d)));
    return { message: msgs.join('; ') || `HTTP ${status}` };
  }
  if (b.detail && typeof b.detail === 'object') {
    const d = b.detail as Record<string, unknown>;
    return { message: typeof d.message === 'string' ? d.message : JSON.stringify(d).slice(0, 500), code: typeof d.status === 'string' ? d.status : null };
  }
  if (typeof b.message === 'string') return { message: b.message };
  return { message: JSON.stringify(b).slice(0, 500) };
}

/** Throws the gateway's error for a non-2xx upstream answer (its body is read and discarded). */
export async function throwIfFailed(res: UpstreamResponse, call: OperationCall): Promise<void> {
  if (res.status < 400) return;
  let body: unknown;
  try {
    body = await readBody(res);
  } catch {
    body = '';
  }
  throw upstreamFailure(call.providerName, res.status, res.headers, decodeUpstreamError(res.status, body));
}

/** The whole upstream body as JSON; a body that is not JSON -> 502 `upstream_bad_response`. */
export async function readJson(res: UpstreamResponse, call: OperationCall): Promise<unknown> {
  let text: string;
  try {
    text = await res.body.text();
  } catch (e) {
    throw mapTransportError(e, { provider: call.providerName, timeoutMs: call.timeoutMs, signal: call.signal });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badResponse(call, 'an answer that is not JSON');
  }
}

/** The whole upstream body as bytes. */
export async function readBytes(res: UpstreamResponse, call: OperationCall): Promise<Uint8Array> {
  try {
    return new Uint8Array(await res.body.arrayBuffer());
  } catch (e) {
    throw mapTransportError(e, { provider: call.providerName, timeoutMs: call.timeoutMs, signal: call.signal });
  }
}

/** 502 for an upstream answer the mapping cannot use. */
export function badResponse(call: OperationCall, what: string): GatewayError {
  return new GatewayError(502, 'upstream_error', 'upstream_bad_response', `Provider '${call.providerName}' sent ${what}.`, { provider: call.providerName });
}
