import type { Conversation, FinishReason, Part, Usage } from '../internal.js';
import { makeItemId, makeSyntheticReasoningId } from './ids.js';
import type { JsonObject } from '../shared/json.js';
import { sealThinking } from './reasoning-data.js';
import { groupAssistantParts, isReasoningGroup, type ReasoningGroup } from './reasoning-items.js';
import { encodeTextFormat, encodeToolChoice, encodeTools } from './tools.js';

/** Status of a Responses object, as the API spells it. */
export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** The state a Responses object is rendered from (whole answers and stream snapshots alike). */
export interface ResponseSnapshot {
  id: string;
  createdAt: number;
  status: ResponseStatus;
  output: JsonObject[];
  usage?: Usage;
  incompleteReason?: 'max_output_tokens' | 'content_filter';
  error?: { code: string; message: string };
}

/** How an internal finish reason shows on a Responses object. */
export function describeFinish(reason: FinishReason): Pick<ResponseSnapshot, 'status' | 'incompleteReason' | 'error'> {
  if (reason === 'length') return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
  if (reason === 'content_filter') return { status: 'incomplete', incompleteReason: 'content_filter' };
  if (reason === 'error') return { status: 'failed', error: { code: 'server_error', message: 'The model failed to complete the response.' } };
  return { status: 'completed' };
}

/** Internal usage -> Responses usage (input_tokens include cached ones on both sides). */
export function encodeUsage(usage: Usage): JsonObject {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0, cache_write_tokens: usage.cacheWriteInputTokens ?? 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/**
 * Renders the Responses object with every field the API (and the official SDK's types) carry,
 * request settings echoed back (https://platform.openai.com/docs/api-reference/responses/object),
 * which is also every field the Open Responses schema requires (`ResponseResource`, 2026-04-24):
 * settings the client left out show the value that applied, e.g. `temperature: 1`, not null.
 */
export function renderResponseObject(snapshot: ResponseSnapshot, request: Conversation, model: string): JsonObject {
  return {
    id: snapshot.id,
    object: 'response',
    created_at: snapshot.createdAt,
    // The moment the response completed; null until then (and for incomplete or failed ones).
    completed_at: snapshot.status === 'completed' ? Math.max(snapshot.createdAt, Math.floor(Date.now() / 1000)) : null,
    status: snapshot.status,
    background: false,
    error: snapshot.error ?? null,
    incomplete_details: snapshot.incompleteReason !== undefined ? { reason: snapshot.incompleteReason } : null,
    instructions: request.system.length > 0 ? request.system.join('\n\n') : null,
    max_output_tokens: request.maxOutputTokens ?? null,
    max_tool_calls: null,
    metadata: request.metadata ?? {},
    model,
    output: snapshot.output,
    parallel_tool_calls: request.parallelToolCalls ?? true,
    previous_response_id: null,
    prompt_cache_key: null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: request.reasoning?.summary ?? null },
    safety_identifier: request.user ?? null,
    service_tier: 'default',
    store: false,
    // Translated calls send no penalties and no logprobs upstream: what applied is the default.
    presence_penalty: 0,
    frequency_penalty: 0,
    temperature: request.temperature ?? 1,
    text: request.responseFormat !== undefined ? encodeTextFormat(request.responseFormat) : { format: { type: 'text' } },
    tool_choice: request.toolChoice !== undefined ? encodeToolChoice(request.toolChoice) : 'auto',
    // `description` is always present on the object (null when none: Open Responses `FunctionTool`).
    tools: encodeTools(request.tools ?? []).map((tool) => ({ description: null, ...tool })),
    top_logprobs: 0,
    top_p: request.topP ?? 1,
    truncation: 'disabled',
    // null until known (response.created / in_progress snapshots), then the counts.
    usage: snapshot.usage !== undefined ? encodeUsage(snapshot.usage) : null,
    // The API omits `user` when none was given (the schema has no null for it).
    ...(request.user !== undefined ? { user: request.user } : {}),
  };
}

/** An output_text content part. */
export function makeOutputText(text: string): JsonObject {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** A reasoning output item; encrypted content from non-OpenAI sources gets a data-derived id. */
export function makeReasoningItem(group: ReasoningGroup, fallbackId: string): JsonObject {
  // Without OpenAI encrypted content, signed thinking (Anthropic, Gemini) rides sealed in its place.
  const encrypted = group.encrypted ?? (group.signed !== undefined ? sealThinking(group.signed) : undefined);
  const id = group.id ?? (encrypted !== undefined ? makeSyntheticReasoningId(encrypted) : fallbackId);
  const item: JsonObject = { id, type: 'reasoning', summary: group.summaries.map((text) => ({ type: 'summary_text', text })) };
  if (encrypted !== undefined) item.encrypted_content = encrypted;
  return item;
}

/**
 * Internal answer parts -> Responses output items: reasoning groups -> `reasoning`, runs of text
 * -> one `message`, each tool call -> `function_call` (call_id = internal tool call id).
 */
export function encodeOutputItems(content: Part[], responseId: string, itemStatus: 'completed' | 'incomplete'): JsonObject[] {
  const items: JsonObject[] = [];
  let message: JsonObject[] | undefined;
  for (const entry of groupAssistantParts(content)) {
    const position = items.length;
    if (isReasoningGroup(entry)) {
      message = undefined;
      items.push(makeReasoningItem(entry, makeItemId('rs', responseId, position)));
    } else if (entry.type === 'text') {
      if (message === undefined) {
        message = [];
        items.push({ id: makeItemId('msg', responseId, position), type: 'message', status: itemStatus, role: 'assistant', content: message });
      }
      message.push(makeOutputText(entry.text));
    } else if (entry.type === 'tool_call') {
      message = undefined;
      items.push({ id: makeItemId('fc', responseId, position), type: 'function_call', status: itemStatus, call_id: entry.id, name: entry.name, arguments: entry.arguments });
    }
  }
  return items;
}
