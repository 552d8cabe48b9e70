import type { SurfaceCodec } from '../codec.js';
import { decodeResponsesRequest } from './request-decode.js';
import { encodeResponsesResponse } from './response-encode.js';
import { ResponsesStreamEncoder } from './stream-encoder.js';

/** The client-facing Responses format of POST /v1/responses (SPEC 4.4, PROVIDERS.md section 4). */
export const openAiResponsesSurface: SurfaceCodec = {
  name: 'openai-responses',
  decodeRequest: decodeResponsesRequest,
  encodeResponse: encodeResponsesResponse,
  createStreamEncoder: (request) => new ResponsesStreamEncoder(request),
};
