/**
 * Anthropic message body -> internal answer (the anthropic-messages dialect's decodeResponse).
 * Reference: https://docs.anthropic.com/en/api/messages (response). The Messages API has no
 * `created`: the time of decoding stands in.
 */
import { GatewayError } from '../../errors/gateway-error.js';
import type { Conversation, InternalResponse, Part } from '../internal.js';
import { readAnthropicStopReason } from '../shared/finish-reasons.js';
import { generateId, nowSeconds } from '../shared/ids.js';
import { isRecord, readString } from '../shared/json.js';
import { readResponseBlock } from './content-blocks.js';
import { readAnthropicUsage } from './usage.js';
import { throwIfErrorAnswer } from '../shared/error-body.js';

/** Decodes an upstream message; throws GatewayError 502 when the body is not one. */
export function decodeMessagesResponse(body: unknown, request: Conversation): InternalResponse {
  throwIfErrorAnswer(body);
  if (!isRecord(body) || !Array.isArray(body.content)) {
    throw new GatewayError(502, 'upstream_error', 'invalid_upstream_response', 'The provider returned a body that is not a message.');
  }
  const content = body.content.map(readResponseBlock).filter((p): p is Part => p !== undefined);
  const finishReason = readAnthropicStopReason(body.stop_reason);
  const stopSequence = readString(body.stop_sequence);
  return {
    id: readString(body.id) || generateId('msg_'),
    model: readString(body.model) ?? request.model,
    created: nowSeconds(),
    content,
    finishReason,
    ...(finishReason === 'stop_sequence' && stopSequence !== undefined ? { stopSequence } : {}),
    usage: readAnthropicUsage(body.usage),
  };
}
