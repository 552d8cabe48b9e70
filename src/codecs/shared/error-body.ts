import { isRecord, parseJson, readString } from './json.js';

import { errorFromStreamEvent, upstreamStreamError, type UpstreamErrorInfo } from '../../errors/upstream-failure.js';

/** What a dialect extracts from an upstream error body (defined beside the table that classifies it). */
export type { UpstreamErrorInfo } from '../../errors/upstream-failure.js';

const MAX_MESSAGE_CHARS = 1000;

/**
 * Normalises an upstream error body of any shape into an object or text: strings and bytes that
 * hold JSON are parsed, others are kept as (trimmed) text.
 */
export function coerceErrorBody(body: unknown): unknown {
  let text: string | undefined;
  if (typeof body === 'string') text = body;
  else if (body instanceof Uint8Array) text = new TextDecoder().decode(body);
  if (text === undefined) return body;
  const parsed = parseJson(text);
  return parsed === undefined ? text.trim() : parsed;
}

/**
 * Reads the error shapes of every provider the gateway speaks to: `{error:{message,type,code}}`
 * (OpenAI and compatibles), `{type:'error', error:{type,message}}` (Anthropic),
 * `{error:{code, message, status}}` (Google), `{error:'text'}`, `{message}` (Cohere),
 * `{detail:'text'}` (Voyage, Jina), `{detail:{status,message}}` and `{detail:[{loc,msg}]}`
 * (ElevenLabs), and plain text or HTML. Falls back to `HTTP <status>` when nothing readable is present.
 */
export function readErrorBody(status: number, body: unknown): UpstreamErrorInfo {
  const value = coerceErrorBody(body);
  if (typeof value === 'string') {
    const text = readableText(value);
    return { message: text === '' ? `HTTP ${status}` : text.slice(0, MAX_MESSAGE_CHARS) };
  }
  if (!isRecord(value)) return { message: `HTTP ${status}` };
  const error = value.error;
  if (isRecord(error)) {
    const message = readString(error.message) ?? `HTTP ${status}`;
    const type = readString(error.type) ?? readString(error.status);
    const rawCode = error.code;
    // Google's `{error:{code: 429, status: 'RESOURCE_EXHAUSTED'}}`: the number is the HTTP
    // status, the code is the rpc status (or its ErrorInfo reason), as the Gemini codec reads it.
    const code = typeof rawCode === 'number' && typeof error.status === 'string' ? googleErrorCode(error)
      : typeof rawCode === 'string' ? rawCode : typeof rawCode === 'number' ? String(rawCode) : null;
    return { message: message.slice(0, MAX_MESSAGE_CHARS), ...(type ? { type } : {}), code };
  }
  if (typeof error === 'string') return { message: error.slice(0, MAX_MESSAGE_CHARS) };
  const detail = value.detail;
  // ElevenLabs: {detail: {status, message}}; FastAPI-style validation: {detail: [{loc, msg}]}.
  if (isRecord(detail)) {
    const code = readString(detail.status) ?? null;
    return { message: (readString(detail.message) ?? readString(value.message) ?? `HTTP ${status}`).slice(0, MAX_MESSAGE_CHARS), code };
  }
  if (Array.isArray(detail)) {
    const findings = detail.map((d) => (isRecord(d) ? `${Array.isArray(d.loc) ? `${d.loc.join('.')}: ` : ''}${readString(d.msg) ?? JSON.stringify(d)}` : String(d)));
    return { message: (findings.join('; ') || `HTTP ${status}`).slice(0, MAX_MESSAGE_CHARS) };
  }
  const message = readString(value.message) ?? readString(detail);
  return { message: (message ?? `HTTP ${status}`).slice(0, MAX_MESSAGE_CHARS) };
}

/**
 * Plain text of a non-JSON body. HTML error pages (proxies, Cloudflare's 413 in front of
 * Anthropic) are reduced to their <title>, or to their text without tags.
 */
function readableText(text: string): string {
  if (!/^\s*</.test(text)) return text.trim();
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
  if (title) return title;
  return text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
}

const STATUS_BY_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  insufficient_quota: 429,
  tokens: 429,
  requests: 429,
  api_error: 500,
  server_error: 500,
  service_unavailable_error: 503,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * HTTP status implied by an upstream error `type` (Anthropic's documented pairs, OpenAI's common
 * types); used for in-band stream errors, which carry no status of their own. Unknown: 502.
 */
export function statusForErrorType(type: string | undefined): number {
  return (type && STATUS_BY_TYPE[type]) || 502;
}

/**
 * Throws when a 2xx answer is in fact an error (`{error:{...}}` in place of the answer, as some
 * OpenAI-compatible servers and proxies send, or a Responses object with status `failed`): the
 * error is classified by the same table as an HTTP error (src/errors/upstream-failure.ts), so a
 * rate limit stays a 429 and an overload an overload, instead of "not a chat completion".
 */
export function throwIfErrorAnswer(body: unknown): void {
  if (!isRecord(body)) return;
  const error = isRecord(body.error) ? body.error : undefined;
  // An answer that also carries its normal fields is an answer (Responses objects have `error: null`).
  if (!error || body.choices !== undefined || body.content !== undefined || body.candidates !== undefined || (body.output !== undefined && body.status !== 'failed')) return;
  const type = readString(error.type) ?? readString(error.status);
  const numeric = typeof error.code === 'number' && error.code >= 400 && error.code < 600 ? error.code : undefined;
  const code = typeof error.code === 'string' ? error.code : null;
  const status = numeric ?? readNumberStatus(error.status) ?? statusForErrorType(type);
  throw errorFromStreamEvent(upstreamStreamError(status, { message: readString(error.message) ?? 'The provider answered with an error.', ...(type ? { type } : {}), code }));
}

function readNumberStatus(value: unknown): number | undefined {
  return typeof value === 'number' && value >= 400 && value < 600 ? value : undefined;
}

/** The code of a google.rpc error object: its ErrorInfo `reason` (e.g. API_KEY_INVALID), else its rpc status. */
export function googleErrorCode(error: Record<string, unknown>): string | null {
  const details = Array.isArray(error.details) ? error.details : [];
  const info = details.find((d): d is Record<string, unknown> => isRecord(d) && (readString(d['@type'])?.endsWith('google.rpc.ErrorInfo') ?? false));
  return readString(info?.reason) ?? readString(error.status) ?? null;
}
