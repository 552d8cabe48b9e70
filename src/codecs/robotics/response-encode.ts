import type { Conversation, InternalResponse } from '../internal.js';
import { collectAnswerText, describeTaskStatus, encodeTaskUsage, toTaskId } from '../research/answer-text.js';
import { derivePlanSteps } from './plan-steps.js';

/**
 * Internal answer -> robotics session object (SPEC 4.11 leaves the body free-form):
 * `{id:'rbs_...', object:'robotics.session', created_at, model, status, plan:{steps}, output_text,
 * tool_calls?, usage}`. Tool calls use the chat-completions shape so clients can run them.
 */
export function encodeRoboticsSession(response: InternalResponse, request: Conversation): Record<string, unknown> {
  const text = collectAnswerText(response);
  const session: Record<string, unknown> = {
    id: toTaskId('rbs_', response.id),
    object: 'robotics.session',
    created_at: response.created,
    model: request.model || response.model,
    status: describeTaskStatus(response.finishReason),
    plan: { steps: derivePlanSteps(text) },
    output_text: text,
  };
  const calls = response.content.flatMap((p) => (p.type === 'tool_call' ? [p] : []));
  if (calls.length > 0) {
    session.tool_calls = calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments.length > 0 ? c.arguments : '{}' } }));
  }
  session.usage = encodeTaskUsage(response.usage);
  return session;
}
