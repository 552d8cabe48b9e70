/**
 * Upstream error body -> message, type and code (openai-chat dialect).
 * OpenAI's envelope: `{"error":{"message","type","param","code"}}`
 * (https://platform.openai.com/docs/guides/error-codes); compatible servers and proxies in front
 * of them also answer `{error:"text"}`, `{message}`, `{detail}` or plain text/HTML.
 */
import { readErrorBody, type UpstreamErrorInfo } from '../shared/error-body.js';

/** Reads an OpenAI-style error body of any shape. */
export function decodeChatError(status: number, body: unknown): UpstreamErrorInfo {
  return readErrorBody(status, body);
}
