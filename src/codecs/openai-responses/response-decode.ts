import type { Conversation, FinishReason, InternalResponse, Part, Usage } from '../internal.js';
import { makeRandomSuffix } from './ids.js';
import { decodeReasoningItem } from './input-decode.js';
import { asArray, readNumber, asObject, readString, type JsonObject } from '../shared/json.js';
import { throwIfErrorAnswer } from '../shared/error-body.js';

/**
 * Upstream Responses object -> internal answer
 * (https://platform.openai.com/docs/api-reference/responses/object). Reasoning items become
 * thinking parts (summaries) plus a redacted_thinking part (id + encrypted content).
 */
export function decodeResponsesDialectResponse(body: unknown, request: Conversation): InternalResponse {
  throwIfErrorAnswer(body);
  const response = asObject(body);
  const content: Part[] = [];
  let refused = false;
  for (const raw of asArray(response.output)) {
    const item = asObject(raw);
    if (item.type === 'message') {
      for (const part of asArray(item.content)) {
        const p = asObject(part);
        if (p.type === 'output_text') content.push({ type: 'text', text: readString(p.text) ?? '' });
        else if (p.type === 'refusal') {
          refused = true;
          content.push({ type: 'text', text: readString(p.refusal) ?? '' });
        }
      }
    } else if (item.type === 'function_call') {
      const args = readString(item.arguments);
      content.push({ type: 'tool_call', id: readString(item.call_id) ?? readString(item.id) ?? `call_${makeRandomSuffix()}`, name: readString(item.name) ?? '', arguments: args !== undefined && args.length > 0 ? args : '{}' });
    } else if (item.type === 'reasoning') {
      content.push(...decodeReasoningItem(item));
    }
  }
  return {
    id: readString(response.id) ?? `resp_${makeRandomSuffix()}`,
    model: readString(response.model) ?? request.model,
    created: readNumber(response.created_at) ?? Math.floor(Date.now() / 1000),
    content,
    finishReason: decodeFinishReason(response, content.some((p) => p.type === 'tool_call'), refused),
    usage: decodeResponsesUsage(response.usage),
  };
}

/** Status (and incomplete_details.reason) -> internal finish reason. */
export function decodeFinishReason(response: JsonObject, hasToolCalls: boolean, refused: boolean): FinishReason {
  if (response.status === 'incomplete') {
    return asObject(response.incomplete_details).reason === 'content_filter' ? 'content_filter' : 'length';
  }
  if (response.status === 'failed' || response.status === 'cancelled') return 'error';
  if (hasToolCalls) return 'tool_calls';
  return refused ? 'refusal' : 'stop';
}

/** Responses usage -> internal usage; `input_tokens` already includes cached tokens. */
export function decodeResponsesUsage(raw: unknown): Usage {
  const usage = asObject(raw);
  const out: Usage = { inputTokens: readNumber(usage.input_tokens) ?? 0, outputTokens: readNumber(usage.output_tokens) ?? 0 };
  const cached = readNumber(asObject(usage.input_tokens_details).cached_tokens);
  if (cached !== undefined && cached > 0) out.cachedInputTokens = cached;
  const written = readNumber(asObject(usage.input_tokens_details).cache_write_tokens);
  if (written !== undefined && written > 0) out.cacheWriteInputTokens = written;
  const reasoning = readNumber(asObject(usage.output_tokens_details).reasoning_tokens);
  if (reasoning !== undefined && reasoning > 0) out.reasoningTokens = reasoning;
  return out;
}
