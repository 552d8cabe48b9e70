import type { FinishReason, InternalResponse, Usage } from '../internal.js';

/** The answer's visible text: its text parts, joined. */
export function collectAnswerText(response: InternalResponse): string {
  return response.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}

/** `completed`, or `incomplete` when the answer was cut short (length, filter, failure). */
export function describeTaskStatus(reason: FinishReason): 'completed' | 'incomplete' {
  return reason === 'length' || reason === 'content_filter' || reason === 'error' ? 'incomplete' : 'completed';
}

/** `{input_tokens, output_tokens, total_tokens}`, the usage shape of the task objects. */
export function encodeTaskUsage(usage: Usage): { input_tokens: number; output_tokens: number; total_tokens: number } {
  return { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };
}

/** `<prefix><id>` with the id reduced to `[A-Za-z0-9]`, kept as is when it already has the prefix. */
export function toTaskId(prefix: string, internalId: string): string {
  if (internalId.startsWith(prefix)) return internalId;
  return `${prefix}${internalId.replace(/[^A-Za-z0-9]/g, '')}`;
}
