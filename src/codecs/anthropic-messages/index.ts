/**
 * The Anthropic Messages format, both as a client surface (`/v1/messages`) and as an upstream
 * dialect (Anthropic and compatible providers). Both are named `anthropic-messages`.
 */
import type { DialectCodec, SurfaceCodec } from '../codec.js';
import { decodeMessagesError } from './errors.js';
import { decodeMessagesRequest } from './request-decode.js';
import { encodeMessagesRequest, versionHeaders } from './request-encode.js';
import { decodeMessagesResponse } from './response-decode.js';
import { encodeMessagesResponse } from './response-encode.js';
import { MessagesStreamDecoder } from './stream-decoder.js';
import { MessagesStreamEncoder } from './stream-encoder.js';

/** Messages client surface: client body <-> internal form, event stream encoder. */
export const anthropicMessagesSurface: SurfaceCodec = {
  name: 'anthropic-messages',
  decodeRequest: (body) => decodeMessagesRequest(body),
  encodeResponse: (response, request) => ({ ...encodeMessagesResponse(response, request) }),
  createStreamEncoder: (request) => new MessagesStreamEncoder(request),
};

/**
 * Messages upstream dialect: `POST <base_url>/v1/messages` where base_url is written as the
 * Anthropic SDK's (`https://api.anthropic.com`); key as `x-api-key` plus `anthropic-version`.
 */
export const anthropicMessagesDialect: DialectCodec = {
  name: 'anthropic-messages',
  authHeaders: (apiKey, options) => ({ 'x-api-key': apiKey, ...versionHeaders(options) }),
  encodeRequest: (request, target) => encodeMessagesRequest(request, target),
  decodeResponse: (body, request) => decodeMessagesResponse(body, request),
  createStreamDecoder: (request) => new MessagesStreamDecoder(request),
  decodeError: (status, body) => decodeMessagesError(status, body),
};

export {
  decodeMessagesRequest, encodeMessagesRequest, decodeMessagesResponse, encodeMessagesResponse,
  MessagesStreamDecoder, MessagesStreamEncoder, decodeMessagesError,
};
