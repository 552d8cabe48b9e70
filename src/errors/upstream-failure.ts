/**
 * What an upstream's error means for the client, decided by one table over the upstream's
 * HTTP status and the provider's own error type/code. The provider's refusal of the gateway's
 * key is the gateway's problem (502 `upstream_auth_error`), never the client's 401; overload,
 * rate limits and timeouts keep their kind (with Retry-After); the provider's complaints about
 * the request keep their status and code.
 */
import type { ErrorCode, ErrorType, ProviderCode } from './catalog.js';
import { GatewayError, gatewayError } from './gateway-error.js';
import { redactSecrets } from './redact.js';

/** What a dialect reads from an upstream error body or in-band error event. */
export interface UpstreamErrorInfo { message: string; type?: string; code?: string | null }

/** The client-facing class of an upstream error. */
export interface UpstreamErrorClass { status: number; type: ErrorType; code: ErrorCode | ProviderCode }

// Provider types/codes meaning "the gateway's credentials were refused" (OpenAI, Anthropic, Google).
const AUTH_MARKERS = new Set(['authentication_error', 'permission_error', 'invalid_api_key', 'API_KEY_INVALID', 'UNAUTHENTICATED', 'PERMISSION_DENIED', 'billing_error']);
const OVERLOAD_MARKERS = new Set(['overloaded_error', 'UNAVAILABLE', 'service_unavailable_error']);
const RATE_MARKERS = new Set(['rate_limit_error', 'RESOURCE_EXHAUSTED', 'rate_limit_exceeded', 'insufficient_quota']);
const TIMEOUT_MARKERS = new Set(['timeout_error', 'DEADLINE_EXCEEDED']);

const TYPE_BY_4XX: Record<number, ErrorType> = { 404: 'not_found_error' };

interface Rule { name: string; matches: (status: number, marks: readonly string[]) => boolean; classify: (status: number, info: UpstreamErrorInfo) => UpstreamErrorClass }

// `marks`: the provider's type and code (at most two), so a scan beats building a set per error.
const has = (marks: readonly string[], set: ReadonlySet<string>) => marks.some((m) => set.has(m));

/** The table, first match wins. Exported for table tests. */
export const UPSTREAM_ERROR_RULES: readonly Rule[] = [
  { name: 'auth', matches: (s, m) => s === 401 || s === 403 || (s < 500 && s !== 429 && has(m, AUTH_MARKERS)), classify: () => ({ status: 502, type: 'upstream_error', code: 'upstream_auth_error' }) },
  { name: 'overloaded', matches: (s, m) => s === 503 || s === 529 || has(m, OVERLOAD_MARKERS), classify: () => ({ status: 503, type: 'overloaded_error', code: 'upstream_overloaded' }) },
  { name: 'rate limit', matches: (s, m) => s === 429 || has(m, RATE_MARKERS), classify: (_s, info) => ({ status: 429, type: 'rate_limit_error', code: providerCode(info.code) ?? 'rate_limit_exceeded' }) },
  { name: 'timeout', matches: (s, m) => s === 408 || s === 504 || has(m, TIMEOUT_MARKERS), classify: () => ({ status: 504, type: 'timeout_error', code: 'upstream_timeout' }) },
  { name: 'payment', matches: (s) => s === 402, classify: () => ({ status: 502, type: 'upstream_error', code: 'upstream_auth_error' }) },
  {
    name: 'request rejected',
    matches: (s) => s >= 400 && s < 500,
    classify: (s, info) => ({ status: s, type: TYPE_BY_4XX[s] ?? 'invalid_request_error', code: providerCode(info.code) ?? (`upstream_${s}` as ProviderCode) }),
  },
  { name: 'server error', matches: () => true, classify: () => ({ status: 502, type: 'upstream_error', code: 'upstream_error' }) },
];

/** Classifies an upstream error by status and the provider's type/code (see the table above). */
export function classifyUpstreamError(status: number, info: Pick<UpstreamErrorInfo, 'type' | 'code'>): UpstreamErrorClass {
  const marks = [info.type, info.code].filter((v): v is string => typeof v === 'string' && v !== '');
  const rule = UPSTREAM_ERROR_RULES.find((r) => r.matches(status, marks))!;
  return rule.classify(status, { message: '', ...info });
}

/**
 * An upstream error answer as a GatewayError (see the table). Retry-After is forwarded; the
 * provider's message is kept with every credential redacted.
 */
export function upstreamFailure(
  provider: string,
  status: number,
  headers: Record<string, string | string[] | undefined>,
  decoded: UpstreamErrorInfo,
): GatewayError {
  const cls = classifyUpstreamError(status, decoded);
  const retryAfter = firstHeader(headers['retry-after']);
  const message = redactSecrets(decoded.message);
  const details: Record<string, unknown> = { provider, upstream_status: status };
  if (decoded.type) details.upstream_type = redactSecrets(decoded.type);
  if (decoded.code) details.upstream_code = redactSecrets(decoded.code);
  if (cls.code === 'upstream_auth_error') {
    return gatewayError('upstream_auth_error', `Provider '${provider}' refused the gateway's provider credentials (HTTP ${status}): ${message} This is a gateway configuration problem, not your API key.`, { details });
  }
  return new GatewayError(
    cls.status,
    cls.type,
    cls.code,
    `Provider '${provider}' answered ${status}: ${message}`,
    details,
    retryAfter ? { 'Retry-After': retryAfter } : undefined,
  );
}

/**
 * The internal stream event for a provider's in-band error (an error event inside a 200
 * stream): classified by the same table, so a Messages client sees `overloaded_error`, a chat
 * client a 503-class error, and so on. `status` is what the event implies (its own, or the
 * status of its type).
 */
export function upstreamStreamError(status: number, info: UpstreamErrorInfo): { type: 'error'; status: number; errorType: string; code: string | null; message: string } {
  const cls = classifyUpstreamError(status, info);
  return { type: 'error', status: cls.status, errorType: cls.type, code: cls.code, message: redactSecrets(info.message) };
}

/** A GatewayError from an internal stream error event (codes outside the catalog are the provider's own). */
export function errorFromStreamEvent(ev: { status: number; errorType: string; code?: string | null; message: string }): GatewayError {
  return new GatewayError(ev.status, ev.errorType, (ev.code ?? null) as ErrorCode | ProviderCode | null, redactSecrets(ev.message));
}

/** First value of a possibly repeated header. */
export function firstHeader(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function providerCode(code: string | null | undefined): ProviderCode | undefined {
  return typeof code === 'string' && code !== '' ? (redactSecrets(code) as ProviderCode) : undefined;
}
