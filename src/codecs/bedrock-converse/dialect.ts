import type { DialectCodec } from '../codec.js';
import { decodeBedrockError } from './error-decode.js';
import { encodeConverseRequest } from './request-encode.js';
import { decodeConverseResponse } from './response-decode.js';
import { ConverseStreamDecoder } from './stream-decoder.js';

/**
 * Bedrock Converse / ConverseStream as an upstream wire format. Requests are signed with SigV4
 * by the provider (src/providers/bedrock), so no key goes into headers here.
 */
export const bedrockConverseDialect: DialectCodec = {
  name: 'bedrock-converse',
  authHeaders: () => ({}),
  encodeRequest: encodeConverseRequest,
  decodeResponse: decodeConverseResponse,
  createStreamDecoder: (request) => new ConverseStreamDecoder(request),
  decodeError: (status, body) => decodeBedrockError(status, body),
};
