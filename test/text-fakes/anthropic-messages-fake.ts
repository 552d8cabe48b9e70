/**
 * Fake Anthropic Messages upstream: `POST /v1/messages` with `x-api-key` (or Bearer, which newer
 * SDKs send) and a required `anthropic-version`; bodies validated against `CreateMessageParams`
 * of anthropic.json (newer fields allowed in test/helpers/openapi.ts). Under version 2026-10-21
 * temperature, top_p and top_k are 400s (PROVIDERS.md section 2).
 */
import { randomBytes } from 'node:crypto';
import type { DialectBehavior } from './fake-upstream.js';
import { anthropicValidator } from '../helpers/openapi.js';

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error', 401: 'authentication_error', 402: 'billing_error', 403: 'permission_error',
  404: 'not_found_error', 409: 'conflict_error', 413: 'request_too_large', 429: 'rate_limit_error',
  500: 'api_error', 504: 'timeout_error', 529: 'overloaded_error',
};

/** Anthropic's error envelope for a status. */
export function anthropicErrorBody(status: number, message: string): unknown {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return { type: 'error', error: { type, message }, request_id: `req_${randomBytes(12).toString('hex')}` };
}

/** The Messages dialect of the fake Anthropic upstream. */
export const anthropicMessagesBehavior: DialectBehavior = {
  name: 'anthropic-messages',
  match: (method, url) => (method === 'POST' && url.pathname === '/v1/messages' ? {} : undefined),
  checkHeaders: (headers, _url, apiKey) => {
    const key = headers['x-api-key'] ?? (headers.authorization?.startsWith('Bearer ') ? headers.authorization.slice(7) : undefined);
    if (key !== apiKey) return { status: 401, message: 'invalid x-api-key' };
    const version = headers['anthropic-version'];
    if (typeof version !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(version)) return { status: 400, message: 'anthropic-version: header is required' };
    return undefined;
  },
  validate: (body, _route, headers) => {
    const findings = anthropicValidator('CreateMessageParams')(body);
    if (headers['anthropic-version'] === '2026-10-21') {
      for (const field of ['temperature', 'top_p', 'top_k']) if (field in (body as object)) findings.push(`/${field} is not supported under anthropic-version 2026-10-21`);
    }
    findings.push(...checkThinkingTurn(body as Record<string, unknown>));
    return findings;
  },
  isStream: (body) => body.stream === true,
  errorBody: anthropicErrorBody,
  streamErrorEvent: (message) => `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message } })}\n\n`,
  responseHeaders: () => ({ 'request-id': `req_${randomBytes(12).toString('hex')}` }),
};

/**
 * Anthropic's extended-thinking rule: with thinking on, the last assistant turn that holds
 * tool_use must start with a thinking (or redacted_thinking) block; the real API answers 400.
 */
function checkThinkingTurn(body: Record<string, unknown>): string[] {
  const thinking = body.thinking as { type?: string } | undefined;
  if (!thinking || thinking.type === 'disabled' || !Array.isArray(body.messages)) return [];
  const last = (body.messages as Array<{ role?: string; content?: unknown }>).findLast((m) => m.role === 'assistant');
  if (!last || !Array.isArray(last.content) || !last.content.some((b: { type?: string }) => b?.type === 'tool_use')) return [];
  const first = (last.content[0] as { type?: string } | undefined)?.type;
  return first === 'thinking' || first === 'redacted_thinking' ? [] : ['/messages: with thinking enabled, a final assistant message must start with a thinking block (found ' + String(first) + ')'];
}
