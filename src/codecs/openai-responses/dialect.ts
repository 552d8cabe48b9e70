import type { DialectCodec } from '../codec.js';
import { decodeOpenAiError } from './error-decode.js';
import { encodeResponsesDialectRequest } from './request-encode.js';
import { decodeResponsesDialectResponse } from './response-decode.js';
import { ResponsesStreamDecoder } from './stream-decoder.js';

/**
 * The OpenAI Responses API as an upstream wire format (POST {base}/responses, base ending in /v1
 * like the OpenAI SDK's). Options: `organization`, `project` (sent as the OpenAI-Organization /
 * OpenAI-Project headers, https://platform.openai.com/docs/api-reference/authentication).
 */
export const openAiResponsesDialect: DialectCodec = {
  name: 'openai-responses',
  authHeaders: (apiKey, options) => ({
    authorization: `Bearer ${apiKey}`,
    ...(typeof options.organization === 'string' ? { 'openai-organization': options.organization } : {}),
    ...(typeof options.project === 'string' ? { 'openai-project': options.project } : {}),
  }),
  encodeRequest: encodeResponsesDialectRequest,
  decodeResponse: decodeResponsesDialectResponse,
  createStreamDecoder: (request) => new ResponsesStreamDecoder(request),
  decodeError: decodeOpenAiError,
};
