/**
 * OpenAI chat completion body -> internal answer (the openai-chat dialect's decodeResponse).
 * Only `choices[0]` is read: the gateway never asks for n > 1.
 * Reference: https://platform.openai.com/docs/api-reference/chat/object
 */
import { GatewayError } from '../../errors/gateway-error.js';
import type { Conversation, FinishReason, InternalResponse, Part } from '../internal.js';
import { readOpenAiFinishReason } from '../shared/finish-reasons.js';
import { nowSeconds, generateId } from '../shared/ids.js';
import { isRecord, readNumber, readString } from '../shared/json.js';
import { readThinkingFields } from './reasoning-fields.js';
import { readChatUsage } from './usage.js';
import { throwIfErrorAnswer } from '../shared/error-body.js';

/** Decodes an upstream chat completion; throws GatewayError 502 when it is not one. */
export function decodeChatResponse(body: unknown, request: Conversation): InternalResponse {
  throwIfErrorAnswer(body);
  if (!isRecord(body) || !Array.isArray(body.choices)) {
    throw new GatewayError(502, 'upstream_error', 'invalid_upstream_response', 'The provider returned a body that is not a chat completion.');
  }
  const choice = body.choices.find((c) => isRecord(c) && (c.index === 0 || c.index === undefined)) ?? body.choices[0];
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : {};
  const content: Part[] = [...readThinkingFields(message)];

  if (typeof message.content === 'string' && message.content !== '') content.push({ type: 'text', text: message.content });
  else if (Array.isArray(message.content)) {
    for (const part of message.content) {
      if (isRecord(part) && typeof part.text === 'string' && part.text !== '') content.push({ type: 'text', text: part.text });
    }
  }
  const refusal = readString(message.refusal);
  if (refusal) content.push({ type: 'text', text: refusal });

  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isRecord(call) || !isRecord(call.function)) continue;
      content.push({
        type: 'tool_call',
        id: readString(call.id) || generateId('call_'),
        name: readString(call.function.name) ?? '',
        arguments: readString(call.function.arguments) || '{}',
      });
    }
  }

  let finishReason: FinishReason = readOpenAiFinishReason(isRecord(choice) ? choice.finish_reason : undefined);
  if (refusal && finishReason === 'stop') finishReason = 'refusal';
  return {
    id: readString(body.id) || generateId('chatcmpl-'),
    model: readString(body.model) ?? request.model,
    created: readNumber(body.created) ?? nowSeconds(),
    content,
    finishReason,
    usage: readChatUsage(body.usage),
  };
}
