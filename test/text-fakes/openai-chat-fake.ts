/**
 * Fake OpenAI Chat Completions upstream: `POST /v1/chat/completions` with `Authorization: Bearer`,
 * bodies validated against `CreateChatCompletionRequest` of openai.json. Errors and in-band stream
 * errors in OpenAI's shapes (PROVIDERS.md section 1).
 */
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { DialectBehavior } from './fake-upstream.js';
import { openAiValidator } from '../helpers/openapi.js';

const OPENAI_ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
  500: { type: 'server_error', code: null },
  503: { type: 'service_unavailable_error', code: null },
};

/** OpenAI's error envelope `{error:{message, type, param, code}}` for a status. */
export function openAiErrorBody(status: number, message: string): unknown {
  const known = OPENAI_ERROR_TYPES[status] ?? { type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
  return { error: { message, type: known.type, param: null, code: known.code } };
}

/** Checks the Bearer key OpenAI expects. */
export function checkBearer(headers: IncomingHttpHeaders, apiKey: string): { status: number; message: string } | undefined {
  if (headers.authorization !== `Bearer ${apiKey}`) {
    return { status: 401, message: `Incorrect API key provided (authorization: ${headers.authorization ? 'wrong key' : 'missing'}).` };
  }
  return undefined;
}

/** OpenAI's per-answer headers. */
export function openAiResponseHeaders(): Record<string, string> {
  return { 'x-request-id': `req_${randomBytes(12).toString('hex')}`, 'openai-processing-ms': '42' };
}

/** The chat completions dialect of the fake OpenAI upstream. */
export const openAiChatBehavior: DialectBehavior = {
  name: 'openai-chat',
  match: (method, url) => (method === 'POST' && url.pathname === '/v1/chat/completions' ? {} : undefined),
  checkHeaders: (headers, _url, apiKey) => checkBearer(headers, apiKey),
  validate: (body) => openAiValidator('CreateChatCompletionRequest')(body),
  isStream: (body) => body.stream === true,
  errorBody: openAiErrorBody,
  // A mid-stream failure is a data chunk with an `error` key; the SDK throws on it.
  streamErrorEvent: (message) => `data: ${JSON.stringify({ error: { message, type: 'server_error', param: null, code: null } })}\n\n`,
  responseHeaders: openAiResponseHeaders,
};
