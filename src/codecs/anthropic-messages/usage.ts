import type { Usage } from '../internal.js';
import { isRecord, readNumber } from '../shared/json.js';
import type { AnthropicUsage } from './wire-types.js';

/**
 * Anthropic usage -> internal. Anthropic's `input_tokens` excludes cached tokens; the internal
 * `inputTokens` counts them all: input + cache_read + cache_creation
 * (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#tracking-cache-performance).
 * `base` supplies values a later, partial report (message_delta) leaves out.
 */
export function readAnthropicUsage(value: unknown, base?: Usage): Usage {
  const u = isRecord(value) ? value : {};
  const cacheRead = readNumber(u.cache_read_input_tokens) ?? base?.cachedInputTokens ?? 0;
  const cacheWrite = readNumber(u.cache_creation_input_tokens) ?? base?.cacheWriteInputTokens ?? 0;
  const uncached = readNumber(u.input_tokens)
    ?? (base ? base.inputTokens - (base.cachedInputTokens ?? 0) - (base.cacheWriteInputTokens ?? 0) : 0);
  const usage: Usage = {
    inputTokens: uncached + cacheRead + cacheWrite,
    outputTokens: readNumber(u.output_tokens) ?? base?.outputTokens ?? 0,
  };
  if (cacheRead) usage.cachedInputTokens = cacheRead;
  if (cacheWrite) usage.cacheWriteInputTokens = cacheWrite;
  const thinking = isRecord(u.output_tokens_details) ? readNumber(u.output_tokens_details.thinking_tokens) : undefined;
  const reasoning = thinking ?? base?.reasoningTokens;
  if (reasoning) usage.reasoningTokens = reasoning;
  return usage;
}

/** Internal -> Anthropic usage (cache tokens split back out of input_tokens). */
export function writeAnthropicUsage(usage: Partial<Usage>): AnthropicUsage {
  const cacheRead = usage.cachedInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteInputTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage.inputTokens ?? 0) - cacheRead - cacheWrite),
    output_tokens: usage.outputTokens ?? 0,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}
