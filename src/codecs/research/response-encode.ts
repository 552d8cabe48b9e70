import type { Conversation, InternalResponse } from '../internal.js';
import { collectAnswerText, describeTaskStatus, encodeTaskUsage, toTaskId } from './answer-text.js';

/**
 * Internal answer -> research run object (SPEC 4.10 leaves the body free-form; this shape mirrors
 * a Responses object so Responses-aware clients can read it):
 * `{id:'run_...', object:'research.run', created_at, model, status, output_text, output:[message], usage}`.
 */
export function encodeResearchRun(response: InternalResponse, request: Conversation): Record<string, unknown> {
  const text = collectAnswerText(response);
  return {
    id: toTaskId('run_', response.id),
    object: 'research.run',
    created_at: response.created,
    model: request.model || response.model,
    status: describeTaskStatus(response.finishReason),
    output_text: text,
    output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }],
    usage: encodeTaskUsage(response.usage),
  };
}
