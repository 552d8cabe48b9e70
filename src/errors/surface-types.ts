/**
 * How an error reads on each client surface. The messages surface (SPEC 2.6, Anthropic's SDK)
 * only knows Anthropic's error types (https://docs.anthropic.com/en/api/errors), and overload is
 * 529 there; the default envelope (chat, responses, everything else) keeps the gateway's types.
 */
import { findCatalogEntry } from './catalog.js';

/** Anthropic's error types (its SDK's ErrorType plus `request_too_large` from the API docs). */
const MESSAGES_TYPES = new Set([
  'invalid_request_error', 'authentication_error', 'billing_error', 'permission_error', 'not_found_error',
  'request_too_large', 'rate_limit_error', 'timeout_error', 'api_error', 'overloaded_error', 'conflict_error',
]);

const MESSAGES_TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 402: 'billing_error', 403: 'permission_error',
  404: 'not_found_error', 405: 'invalid_request_error', 409: 'conflict_error', 413: 'request_too_large',
  415: 'invalid_request_error', 422: 'invalid_request_error', 429: 'rate_limit_error', 503: 'overloaded_error',
  504: 'timeout_error', 529: 'overloaded_error',
};

/** An error's public fields as a surface writes them. */
export interface SurfaceError { status: number; type: string }

/**
 * Status and type of an error on the messages surface: the catalog row's override when it has
 * one, else the type when Anthropic's SDK knows it, else the type Anthropic uses for the status.
 */
export function toMessagesError(status: number, type: string, code?: string | null): SurfaceError {
  const row = code ? findCatalogEntry(code, status) : undefined;
  const outStatus = row?.messages?.status ?? status;
  if (row?.messages?.type) return { status: outStatus, type: row.messages.type };
  if (MESSAGES_TYPES.has(type)) return { status: outStatus, type };
  return { status: outStatus, type: MESSAGES_TYPE_BY_STATUS[outStatus] ?? (outStatus >= 400 && outStatus < 500 ? 'invalid_request_error' : 'api_error') };
}
