import { readErrorBody, type UpstreamErrorInfo } from '../shared/error-body.js';

/**
 * OpenAI error body `{"error":{"message","type","param","code"}}` (any status) -> message, type,
 * code (https://platform.openai.com/docs/guides/error-codes). Other shapes (proxies, HTML pages)
 * are summarised by the shared reader, never thrown on.
 */
export function decodeOpenAiError(status: number, body: unknown): UpstreamErrorInfo {
  return readErrorBody(status, body);
}
