/**
 * Internal answer -> Messages response body (the messages surface's encodeResponse).
 * Reference: https://docs.anthropic.com/en/api/messages (response).
 */
import type { Conversation, InternalResponse } from '../internal.js';
import { writeAnthropicStopReason } from '../shared/finish-reasons.js';
import { withIdPrefix } from '../shared/ids.js';
import { encodeAssistantBlock } from './content-blocks.js';
import { writeAnthropicUsage } from './usage.js';
import type { AnthropicMessage } from './wire-types.js';

/** Encodes the answer under the canonical model id the client asked for. */
export function encodeMessagesResponse(response: InternalResponse, request: Conversation): AnthropicMessage {
  const stopReason = writeAnthropicStopReason(response.finishReason);
  return {
    id: withIdPrefix('msg_', response.id),
    type: 'message',
    role: 'assistant',
    model: request.model,
    content: response.content.flatMap((part) => encodeAssistantBlock(part, true)),
    stop_reason: stopReason,
    stop_sequence: stopReason === 'stop_sequence' ? response.stopSequence ?? null : null,
    usage: writeAnthropicUsage(response.usage),
  };
}
