/**
 * Reasoning on Converse: the API has no common field, so each model family takes its own in
 * `additionalModelRequestFields` (passed to the model as is):
 * - Anthropic Claude: `thinking: {type: 'enabled', budget_tokens}` (budget >= 1024 and below
 *   maxTokens; https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html);
 * - Amazon Nova 2: `reasoningConfig: {type: 'enabled', maxReasoningEffort: low|medium|high}`;
 * - OpenAI gpt-oss: `reasoning_effort`.
 * Other families (DeepSeek R1 always reasons) get nothing. Effort `none` sends nothing either,
 * since every family above defaults to no reasoning.
 */
import type { Conversation, ReasoningEffort } from '../internal.js';
import type { JsonObject } from '../shared/json.js';

const MIN_BUDGET = 1024;
const BUDGET_BY_EFFORT: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 24576, max: 32768,
};

/** Three-level efforts (Nova, gpt-oss) per internal effort. */
function threeLevels(effort: Exclude<ReasoningEffort, 'none'>): 'low' | 'medium' | 'high' {
  return effort === 'minimal' || effort === 'low' ? 'low' : effort === 'medium' ? 'medium' : 'high';
}

/** The model family a Bedrock model id names (foundation id, inference profile or ARN). */
export function modelFamily(modelId: string): 'anthropic' | 'nova' | 'gpt-oss' | 'other' {
  if (/(^|[./])anthropic\./.test(modelId)) return 'anthropic';
  if (/(^|[./])amazon\.nova/.test(modelId)) return 'nova';
  if (/(^|[./])openai\.gpt-oss/.test(modelId)) return 'gpt-oss';
  return 'other';
}

/** The reasoning fields for `additionalModelRequestFields` (empty when none apply). */
export function encodeReasoningFields(reasoning: Conversation['reasoning'], modelId: string, maxTokens: number | undefined): JsonObject {
  if (!reasoning || reasoning.effort === 'none') return {};
  const effort = reasoning.effort ?? 'medium';
  switch (modelFamily(modelId)) {
    case 'anthropic': {
      const budget = reasoning.budgetTokens ?? BUDGET_BY_EFFORT[effort];
      const fitted = maxTokens !== undefined ? Math.min(budget, maxTokens - 1) : budget;
      return fitted >= MIN_BUDGET ? { thinking: { type: 'enabled', budget_tokens: fitted } } : {};
    }
    case 'nova': return { reasoningConfig: { type: 'enabled', maxReasoningEffort: threeLevels(effort) } };
    case 'gpt-oss': return { reasoning_effort: threeLevels(effort) };
    default: return {};
  }
}
