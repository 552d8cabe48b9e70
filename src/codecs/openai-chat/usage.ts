import type { Usage } from '../internal.js';
import { isRecord, readNumber } from '../shared/json.js';
import type { ChatUsage } from './wire-types.js';

/**
 * OpenAI usage -> internal. `prompt_tokens` already includes cached tokens, like the internal
 * `inputTokens`; `reasoning_tokens` are part of `completion_tokens`.
 * https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage
 */
export function readChatUsage(value: unknown): Usage {
  if (!isRecord(value)) return { inputTokens: 0, outputTokens: 0 };
  const usage: Usage = {
    inputTokens: readNumber(value.prompt_tokens) ?? 0,
    outputTokens: readNumber(value.completion_tokens) ?? 0,
  };
  const cached = isRecord(value.prompt_tokens_details) ? readNumber(value.prompt_tokens_details.cached_tokens) : undefined;
  if (cached) usage.cachedInputTokens = cached;
  // Some OpenAI-compatible providers report prompt-cache writes Anthropic-style.
  const cacheWrite = readNumber(value.cache_creation_input_tokens);
  if (cacheWrite) usage.cacheWriteInputTokens = cacheWrite;
  const reasoning = isRecord(value.completion_tokens_details) ? readNumber(value.completion_tokens_details.reasoning_tokens) : undefined;
  if (reasoning) usage.reasoningTokens = reasoning;
  return usage;
}

/**
 * Internal -> OpenAI usage object, with the details objects always present (as OpenAI sends
 * them). Prompt-cache writes (Anthropic upstreams) have no OpenAI field: they go in
 * `cache_creation_input_tokens` (LiteLLM's spelling) when there were some.
 */
export function writeChatUsage(usage: Usage): ChatUsage {
  const out: ChatUsage = {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
  };
  if (usage.cacheWriteInputTokens) out.cache_creation_input_tokens = usage.cacheWriteInputTokens;
  return out;
}
