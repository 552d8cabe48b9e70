import type { Conversation, InternalResponse } from '../internal.js';
import { toResponseId } from './ids.js';
import type { JsonObject } from '../shared/json.js';
import { describeFinish, encodeOutputItems, renderResponseObject } from './response-object.js';

/** Internal answer -> the Responses object a client of POST /v1/responses receives. */
export function encodeResponsesResponse(response: InternalResponse, request: Conversation): JsonObject {
  const id = toResponseId(response.id);
  const finish = describeFinish(response.finishReason);
  const output = encodeOutputItems(response.content, id, finish.status === 'completed' ? 'completed' : 'incomplete');
  return renderResponseObject({ id, createdAt: response.created, output, usage: response.usage, ...finish }, request, request.model || response.model);
}
