import type { DialectCodec } from '../codec.js';
import { decodeOpenAiError } from './error-decode.js';
import { encodeResponsesDialectRequest } from './request-encode.js';
import { decodeResponsesDialectResponse } from './response-decode.js';
import { ResponsesStreamDecoder } from './stream-decoder.js';

/** The OpenAI Responses API as an upstream wire format (POST {base}/responses, Bearer auth). */
export const openAiResponsesDialect: DialectCodec = {
  name: 'openai-responses',
  authHeaders: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
  encodeRequest: encodeResponsesDialectRequest,
  decodeResponse: decodeResponsesDialectResponse,
  createStreamDecoder: (request) => new ResponsesStreamDecoder(request),
  decodeError: decodeOpenAiError,
};
