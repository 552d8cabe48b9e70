/**
 * Reasoning settings: internal `reasoning` <-> Anthropic `thinking` + `output_config.effort`.
 * https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking and the effort parameter
 * (`output_config.effort`: low|medium|high|xhigh|max; `thinking`: enabled{budget_tokens} |
 * adaptive | disabled).
 *
 * Encoding, by provider option `thinking_mode`:
 * - `adaptive` (default, Claude >= 4.6): an effort becomes `thinking:{type:'adaptive'}` plus
 *   `output_config.effort`; a client-given token budget is still sent as `enabled`.
 * - `budget` (older Claude models that reject `adaptive`): an effort becomes
 *   `thinking:{type:'enabled', budget_tokens}` from a fixed table.
 * Effort `none` is `thinking:{type:'disabled'}`; `minimal` (OpenAI only) is sent as `low`.
 * Budgets must be >= 1024 and below max_tokens: they are clamped, and dropped when no valid
 * budget fits.
 */
import type { Conversation, ReasoningEffort } from '../internal.js';
import { isRecord, readNumber } from '../shared/json.js';
import type { AnthropicEffort, AnthropicThinking } from './wire-types.js';

const ANTHROPIC_EFFORTS: readonly string[] = ['low', 'medium', 'high', 'xhigh', 'max'];
const MIN_BUDGET = 1024;
const BUDGET_BY_EFFORT: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 24576, max: 32768,
};

/** A client's `thinking` / `output_config.effort` -> internal reasoning (undefined: not asked). */
export function decodeReasoning(body: Record<string, unknown>): Conversation['reasoning'] {
  const config = isRecord(body.output_config) ? body.output_config : {};
  const effort = typeof config.effort === 'string' && ANTHROPIC_EFFORTS.includes(config.effort) ? config.effort as ReasoningEffort : undefined;
  const thinking = isRecord(body.thinking) ? body.thinking : undefined;
  if (thinking?.type === 'disabled') return { effort: 'none' };
  if (thinking?.type === 'enabled') {
    const budget = readNumber(thinking.budget_tokens);
    return { ...(budget !== undefined ? { budgetTokens: budget } : {}), ...(effort ? { effort } : {}) };
  }
  // adaptive (or a newer mode): thinking on, depth left to the model or to `effort`.
  if (thinking) return effort ? { effort } : {};
  return effort ? { effort } : undefined;
}

/** What the dialect sends for reasoning. */
export interface EncodedReasoning { thinking?: AnthropicThinking; effort?: AnthropicEffort }

/** Internal reasoning -> `thinking` and `output_config.effort` for a request with `maxTokens`. */
export function encodeReasoning(reasoning: Conversation['reasoning'], mode: unknown, maxTokens: number): EncodedReasoning {
  if (!reasoning) return {};
  if (reasoning.effort === 'none') return { thinking: { type: 'disabled' } };
  const effort = reasoning.effort ? toAnthropicEffort(reasoning.effort) : undefined;
  const budget = reasoning.budgetTokens
    ?? (mode === 'budget' ? BUDGET_BY_EFFORT[reasoning.effort ?? 'medium'] : undefined);
  if (budget !== undefined) {
    const fitted = Math.min(budget, maxTokens - 1);
    if (fitted < MIN_BUDGET) return effort ? { effort } : {};
    return { thinking: { type: 'enabled', budget_tokens: fitted }, ...(effort && reasoning.budgetTokens !== undefined ? { effort } : {}) };
  }
  return { thinking: { type: 'adaptive' }, ...(effort ? { effort } : {}) };
}

function toAnthropicEffort(effort: Exclude<ReasoningEffort, 'none'>): AnthropicEffort {
  return effort === 'minimal' ? 'low' : effort;
}
