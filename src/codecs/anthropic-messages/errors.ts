/**
 * Upstream error body -> message, type and code (anthropic-messages dialect).
 * Anthropic's envelope: `{"type":"error","error":{"type","message"},"request_id"}`
 * (https://docs.anthropic.com/en/api/errors); a 413 comes from Cloudflare before the API and may
 * be HTML or plain text. Anthropic has no `code`: the error type is the stable value.
 */
import { readErrorBody, type UpstreamErrorInfo } from '../shared/error-body.js';

/** Reads an Anthropic error body of any shape. */
export function decodeMessagesError(status: number, body: unknown): UpstreamErrorInfo {
  const info = readErrorBody(status, body);
  return { message: info.message, ...(info.type ? { type: info.type } : {}), code: info.code ?? null };
}
