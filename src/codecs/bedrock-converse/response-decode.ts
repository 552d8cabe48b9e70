/**
 * Converse response -> internal answer
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax).
 * Converse gives no message id: one is made up. Blocks without an internal form (citations,
 * guardContent, images a model drew) are skipped.
 */
import type { Conversation, FinishReason, InternalResponse, Part, Usage } from '../internal.js';
import { throwIfErrorAnswer } from '../shared/error-body.js';
import { generateId, nowSeconds } from '../shared/ids.js';
import { asArray, asObject, isRecord, readNumber, readString } from '../shared/json.js';

/** Decodes a whole Converse answer. */
export function decodeConverseResponse(body: unknown, request: Conversation): InternalResponse {
  throwIfErrorAnswer(body);
  const response = asObject(body);
  const message = asObject(asObject(response.output).message);
  const content = asArray(message.content).flatMap((block) => decodeResponseBlock(block));
  const finishReason = readConverseStopReason(response.stopReason);
  const stopSequence = readString(asObject(response.additionalModelResponseFields).stop_sequence);
  return {
    id: generateId('bedrock-'),
    model: request.model,
    created: nowSeconds(),
    content,
    finishReason,
    ...(finishReason === 'stop_sequence' && stopSequence !== undefined ? { stopSequence } : {}),
    usage: readConverseUsage(response.usage),
  };
}

/** One output block -> internal parts (text, toolUse, reasoningContent). */
function decodeResponseBlock(raw: unknown): Part[] {
  const block = asObject(raw);
  if (typeof block.text === 'string') return block.text === '' ? [] : [{ type: 'text', text: block.text }];
  if (isRecord(block.toolUse)) {
    const use = block.toolUse;
    return [{ type: 'tool_call', id: readString(use.toolUseId) ?? generateId('tooluse_'), name: readString(use.name) ?? '', arguments: JSON.stringify(isRecord(use.input) ? use.input : {}) }];
  }
  if (isRecord(block.reasoningContent)) {
    const reasoning = block.reasoningContent;
    const redacted = readString(reasoning.redactedContent);
    if (redacted !== undefined) return [{ type: 'redacted_thinking', data: redacted }];
    const text = asObject(reasoning.reasoningText);
    const signature = readString(text.signature);
    return [{ type: 'thinking', text: readString(text.text) ?? '', ...(signature ? { signature } : {}) }];
  }
  return [];
}

/**
 * `stopReason` -> internal (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html):
 * guardrail and content filtering read as content_filter; a full context window as length;
 * unknown (newer) values as stop.
 */
export function readConverseStopReason(reason: unknown): FinishReason {
  switch (reason) {
    case 'tool_use': return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded': return 'length';
    case 'stop_sequence': return 'stop_sequence';
    case 'guardrail_intervened':
    case 'content_filtered': return 'content_filter';
    default: return 'stop';
  }
}

/**
 * `usage` -> internal. Converse's `inputTokens` leaves out the tokens read from and written to
 * the prompt cache (`cacheReadInputTokens`, `cacheWriteInputTokens`); the internal count holds
 * them all. Reasoning tokens are not reported apart from `outputTokens`.
 */
export function readConverseUsage(raw: unknown): Usage {
  const usage = asObject(raw);
  const read = readNumber(usage.cacheReadInputTokens) ?? 0;
  const write = readNumber(usage.cacheWriteInputTokens) ?? 0;
  const out: Usage = { inputTokens: (readNumber(usage.inputTokens) ?? 0) + read + write, outputTokens: readNumber(usage.outputTokens) ?? 0 };
  if (read > 0) out.cachedInputTokens = read;
  if (write > 0) out.cacheWriteInputTokens = write;
  return out;
}
