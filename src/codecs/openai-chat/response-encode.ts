/**
 * Internal answer -> chat completion body (the chat surface's encodeResponse).
 * Reference: https://platform.openai.com/docs/api-reference/chat/object
 */
import type { Conversation, InternalResponse, TextPart } from '../internal.js';
import { writeOpenAiFinishReason } from '../shared/finish-reasons.js';
import { withIdPrefix } from '../shared/ids.js';
import { writeThinkingFields } from './reasoning-fields.js';
import { writeChatUsage } from './usage.js';
import type { ChatCompletion, ChatToolCall } from './wire-types.js';

/** Encodes the answer under the canonical model id the client asked for. */
export function encodeChatResponse(response: InternalResponse, request: Conversation): ChatCompletion {
  const text = response.content.filter((p): p is TextPart => p.type === 'text').map((p) => p.text).join('');
  const toolCalls: ChatToolCall[] = response.content.flatMap((p) => (p.type === 'tool_call'
    ? [{ id: p.id, type: 'function' as const, function: { name: p.name, arguments: p.arguments } }]
    : []));
  return {
    id: withIdPrefix('chatcmpl-', response.id),
    object: 'chat.completion',
    created: response.created,
    model: request.model,
    choices: [{
      index: 0,
      message: {
        role: 'assistant',
        // OpenAI sends null content on a message that only carries tool calls.
        content: text === '' && toolCalls.length > 0 ? null : text,
        refusal: null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        ...writeThinkingFields(response.content),
      },
      logprobs: null,
      finish_reason: writeOpenAiFinishReason(response.finishReason),
    }],
    usage: writeChatUsage(response.usage),
  };
}
