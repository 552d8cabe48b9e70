/**
 * Fake OpenAI Responses upstream: `POST /v1/responses` with `Authorization: Bearer`, bodies
 * validated against `CreateResponse` of openai.json. Stream errors are the documented `error`
 * event `{type:'error', code, message, param, sequence_number}` (PROVIDERS.md section 4).
 */
import type { DialectBehavior } from './fake-upstream.js';
import { checkBearer, openAiErrorBody, openAiResponseHeaders } from './openai-chat-fake.js';
import { openAiValidator } from '../helpers/openapi.js';

/** The responses dialect of the fake OpenAI upstream. */
export const openAiResponsesBehavior: DialectBehavior = {
  name: 'openai-responses',
  match: (method, url) => (method === 'POST' && url.pathname === '/v1/responses' ? {} : undefined),
  checkHeaders: (headers, _url, apiKey) => checkBearer(headers, apiKey),
  validate: (body) => openAiValidator('CreateResponse')(body),
  isStream: (body) => body.stream === true,
  errorBody: openAiErrorBody,
  streamErrorEvent: (message) =>
    `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_error', message, param: null, sequence_number: 99 })}\n\n`,
  responseHeaders: openAiResponseHeaders,
};
