import type { DialectCodec } from '../codec.js';
import { decodeGeminiError } from './error-decode.js';
import { encodeGeminiRequest } from './request-encode.js';
import { decodeGeminiResponse } from './response-decode.js';
import { GeminiStreamDecoder } from './stream-decoder.js';

/** Google Gemini Developer API generateContent as an upstream wire format (PROVIDERS.md section 5). */
export const geminiDialect: DialectCodec = {
  name: 'gemini',
  // https://ai.google.dev/api#authentication: the key travels in x-goog-api-key (not a Bearer token).
  authHeaders: (apiKey) => ({ 'x-goog-api-key': apiKey }),
  encodeRequest: encodeGeminiRequest,
  decodeResponse: decodeGeminiResponse,
  createStreamDecoder: (request) => new GeminiStreamDecoder(request),
  decodeError: decodeGeminiError,
};
