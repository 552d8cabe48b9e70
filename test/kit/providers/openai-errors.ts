/** OpenAI's error envelope, as the provider fakes answer it (and as Mistral-style hosts copy it). */
import { openAiError as openAiError_ } from '../dialects.js';
import type { HandlerReply } from '../handler.js';

/** The body OpenAI answers `status` with (type and code as OpenAI sends them for that status). */
export const openAiErrorBody: (status: number, message: string) => unknown = openAiError_;

/** A reply in OpenAI's envelope with an explicit type and code. */
export function openAiError(status: number, message: string, type = 'invalid_request_error', code: string | null = null): HandlerReply {
  return { status, json: { error: { message, type, param: null, code } } };
}
