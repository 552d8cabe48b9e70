/**
 * The OpenAI Chat Completions format, both as a client surface (`/v1/chat/completions`) and as an
 * upstream dialect (OpenAI and OpenAI-compatible providers). Both are named `openai-chat`.
 */
import type { DialectCodec, SurfaceCodec } from '../codec.js';
import { decodeChatError } from './errors.js';
import { decodeChatRequest } from './request-decode.js';
import { encodeChatRequest } from './request-encode.js';
import { decodeChatResponse } from './response-decode.js';
import { encodeChatResponse } from './response-encode.js';
import { ChatStreamDecoder } from './stream-decoder.js';
import { ChatStreamEncoder } from './stream-encoder.js';

/** Chat completions client surface: client body <-> internal form, chunk stream encoder. */
export const openAiChatSurface: SurfaceCodec = {
  name: 'openai-chat',
  decodeRequest: (body) => decodeChatRequest(body),
  encodeResponse: (response, request) => ({ ...encodeChatResponse(response, request) }),
  createStreamEncoder: (request) => new ChatStreamEncoder(request),
};

/**
 * Chat completions upstream dialect: `POST <base_url>/chat/completions` where base_url ends with
 * `/v1` as in the OpenAI SDK (`https://api.openai.com/v1`); key as `Authorization: Bearer`.
 * Options: `organization`, `project` (headers), plus those read by request-encode.ts.
 */
export const openAiChatDialect: DialectCodec = {
  name: 'openai-chat',
  authHeaders: (apiKey, options) => ({
    authorization: `Bearer ${apiKey}`,
    // Optional OpenAI headers (https://platform.openai.com/docs/api-reference/authentication).
    ...(typeof options.organization === 'string' ? { 'openai-organization': options.organization } : {}),
    ...(typeof options.project === 'string' ? { 'openai-project': options.project } : {}),
  }),
  encodeRequest: (request, target) => encodeChatRequest(request, target),
  decodeResponse: (body, request) => decodeChatResponse(body, request),
  createStreamDecoder: (request) => new ChatStreamDecoder(request),
  decodeError: (status, body) => decodeChatError(status, body),
};

export { decodeChatRequest, encodeChatRequest, decodeChatResponse, encodeChatResponse, ChatStreamDecoder, ChatStreamEncoder, decodeChatError };
