import { sealCompaction } from '../../codecs/openai-responses/compaction.js';
import { errors } from '../../errors/gateway-error.js';
import type { OperationCall, OperationResult } from '../types.js';
import { deriveId } from './hash.js';
import { countTokens } from './token-estimate.js';

type Item = Record<string, unknown>;

/**
 * `responses.compact` (POST /v1/responses/compact), made by the gateway: the user messages of
 * `input` are kept (as completed message items), everything else (assistant messages, tool
 * calls and results, reasoning) folds into one `compaction` item whose opaque content the
 * gateway unfolds when it comes back as input (codecs/openai-responses/compaction.ts), so the
 * compacted list continues the conversation on any model. Deterministic; `previous_response_id`
 * is not read here (send the conversation as `input`).
 */
export async function compactConversation(call: OperationCall): Promise<OperationResult> {
  const body = call.body;
  if (body.previous_response_id !== undefined && body.previous_response_id !== null) {
    throw errors.invalidRequest('This model compacts the `input` it is sent; send the conversation as input instead of previous_response_id.', 'unsupported_parameter', { param: 'previous_response_id' });
  }
  const items = readItems(body.input);
  const key = JSON.stringify(items);
  const kept: Item[] = [];
  const folded: Item[] = [];
  items.forEach((item, index) => {
    if ((item.type ?? 'message') === 'message' && item.role === 'user') kept.push(userMessage(item, deriveId('msg_', key, String(index))));
    else folded.push(item);
  });
  const compaction = { id: deriveId('cmp_', key), type: 'compaction', encrypted_content: sealCompaction(folded as never) };
  const inputTokens = countTokens(key) + countTokens(typeof body.instructions === 'string' ? body.instructions : '');
  const outputTokens = Math.ceil(compaction.encrypted_content.length / 16);
  return {
    kind: 'json',
    body: {
      id: deriveId('resp_', key),
      object: 'response.compaction',
      created_at: Math.floor(Date.now() / 1000),
      output: [...kept, compaction],
      usage: { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: outputTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + outputTokens },
    },
  };
}

function readItems(input: unknown): Item[] {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  if (Array.isArray(input) && input.every((i) => i !== null && typeof i === 'object' && !Array.isArray(i))) return input as Item[];
  throw errors.invalidRequest('input is required: the conversation to compact, as a string or an array of input items.', 'invalid_input', { param: 'input' });
}

/** A user message as a completed message item (string content as one input_text part). */
function userMessage(item: Item, id: string): Item {
  const content = typeof item.content === 'string' ? [{ type: 'input_text', text: item.content }] : item.content;
  return { id: typeof item.id === 'string' ? item.id : id, type: 'message', status: 'completed', role: 'user', content };
}
