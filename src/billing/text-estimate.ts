import type { Conversation } from '../codecs/internal.js';
import type { ModelSpec } from '../config/types.js';
import { budgetExceeded } from './billing-errors.js';
import { outputTokenPrice, type Pricing } from './pricing.js';
import { countConversationTokens } from './token-counter.js';
import { roundUsd } from './usd.js';

/** Smallest output worth calling for: below this a budget that does not fit is refused. */
export const MIN_USEFUL_OUTPUT_TOKENS = 16;
/** Output bound assumed when neither the request nor the catalog limits the answer. */
export const DEFAULT_OUTPUT_BOUND = 32_768;

/** The worst case of a text call. */
export interface TextEstimate {
  /** Worst-case prompt tokens (tokenizer count, framing, images). */
  readonly inputTokens: number;
  /** Most output tokens the call may produce (request's limit, else the model's). */
  readonly outputTokens: number;
  /** Whether outputTokens comes from the request or the catalog (else it must be sent). */
  readonly outputBounded: boolean;
  /** Input at its dearest rate plus the per-request price. */
  readonly fixedUsd: number;
  /** USD per output token (the dearer of completion and reasoning). */
  readonly outputPrice: number;
  readonly worstCaseUsd: number;
}

/**
 * Worst case of a text call before it runs: prompt tokens at the dearest input rate (prompt or
 * cache write), output bounded by the request's limit, else the model's `max_output_tokens`,
 * else what the context leaves, at the dearest output rate, plus the per-request price.
 */
export async function estimateTextCall(request: Conversation, model: ModelSpec, pricing: Pricing): Promise<TextEstimate> {
  const inputTokens = (await countConversationTokens(request)).tokens;
  const fromCatalog = model.max_output_tokens ?? (model.context_length ? Math.max(1, model.context_length - inputTokens) : undefined);
  const outputTokens = request.maxOutputTokens ?? fromCatalog ?? DEFAULT_OUTPUT_BOUND;
  const inputPrice = Math.max(pricing.prompt ?? 0, pricing.input_cache_write ?? 0);
  const fixedUsd = inputTokens * inputPrice + (pricing.request ?? 0);
  const outputPrice = outputTokenPrice(pricing);
  return {
    inputTokens,
    outputTokens,
    outputBounded: request.maxOutputTokens !== undefined || fromCatalog !== undefined,
    fixedUsd: roundUsd(fixedUsd),
    outputPrice,
    worstCaseUsd: roundUsd(fixedUsd + outputTokens * outputPrice),
  };
}

/** A text estimate with its output limit lowered to `maxOutputTokens`. */
export function withOutputLimit(estimate: TextEstimate, maxOutputTokens: number): TextEstimate {
  const outputTokens = Math.min(estimate.outputTokens, maxOutputTokens);
  return { ...estimate, outputTokens, outputBounded: true, worstCaseUsd: roundUsd(estimate.fixedUsd + outputTokens * estimate.outputPrice) };
}

/**
 * The most output tokens that keep the call within `budgetUsd`, or undefined when fewer than
 * MIN_USEFUL_OUTPUT_TOKENS would fit. Infinity when output is free.
 */
export function fitOutputTokens(estimate: TextEstimate, budgetUsd: number): number | undefined {
  const left = budgetUsd - estimate.fixedUsd;
  if (left < 0) return undefined;
  if (estimate.outputPrice <= 0) return Infinity;
  const tokens = Math.floor(left / estimate.outputPrice + 1e-9);
  return tokens >= MIN_USEFUL_OUTPUT_TOKENS ? tokens : undefined;
}

/**
 * Fits a text call into `max_budget_usd`: unchanged when its worst case fits, else the output
 * limit lowered to what the budget leaves (>= MIN_USEFUL_OUTPUT_TOKENS), else 400
 * `budget_exceeded` with the estimate.
 */
export function fitTextBudget(estimate: TextEstimate, budgetUsd: number): TextEstimate {
  if (estimate.worstCaseUsd <= budgetUsd) return estimate;
  const tokens = fitOutputTokens(estimate, budgetUsd);
  if (tokens === undefined) {
    throw budgetExceeded(estimate.worstCaseUsd, budgetUsd, {
      input_tokens: estimate.inputTokens,
      max_output_tokens: estimate.outputTokens,
      min_useful_output_tokens: MIN_USEFUL_OUTPUT_TOKENS,
    });
  }
  return withOutputLimit(estimate, tokens);
}
