import type { Conversation } from '../codecs/internal.js';
import type { ModelSpec } from '../config/types.js';
import { errors } from '../errors/gateway-error.js';
import { assertOperationFits, estimateOperation, type OperationEstimate } from './operation-cost.js';
import type { UnitRequest } from './operation-units.js';
import type { Pricing } from './pricing.js';
import type { SpendHold } from './spend-hold.js';
import type { StreamSpendLimit } from './stream-spend-limiter.js';
import { estimateTextCall, fitOutputTokens, fitTextBudget, withOutputLimit, type TextEstimate } from './text-estimate.js';

/**
 * Before a call: the budget checks of one request, in order. (1) its own `max_budget_usd`
 * (fit the output or 400 `budget_exceeded`), (2) the key's token limit and budget (reserve the
 * worst case, fit the output to what is left or 402 `budget_exhausted`).
 */

/** `max_budget_usd` of a body: undefined when absent; 400 when present but not a number > 0. */
export function readMaxBudget(body: Readonly<Record<string, unknown>>): number | undefined {
  const v = body.max_budget_usd;
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw errors.validation("'max_budget_usd' must be a number > 0.", [{ field: 'max_budget_usd', rule: 'exclusiveMinimum', limit: 0 }]);
  }
  return v;
}

/** What a text call runs with once its budgets are applied. */
export interface TextPlan {
  /** The estimate (with any lowered output limit); undefined when no budget needed one. */
  readonly estimate?: TextEstimate;
  /** Stream spend limit, when a budget caps this call. */
  readonly limit?: StreamSpendLimit;
  /** True when the call must go through translation (a budget applies or the request was changed). */
  readonly translate: boolean;
}

/**
 * Applies the request's `max_budget_usd` and the key's budget to a text call. May lower
 * `request.maxOutputTokens` (in place) so the worst case fits; throws 400/402/429 as documented.
 */
export async function planTextCall(request: Conversation, model: ModelSpec, pricing: Pricing, budgetUsd: number | undefined, hold: SpendHold): Promise<TextPlan> {
  if (budgetUsd === undefined && !hold.needsEstimate) return { translate: false };
  const initial = await estimateTextCall(request, model, pricing);
  let estimate = budgetUsd === undefined ? initial : fitTextBudget(initial, budgetUsd);
  let fittedToKey = false;
  const reserved = await hold.reserve(estimate.worstCaseUsd, estimate.inputTokens, (remainingUsd) => {
    const tokens = fitOutputTokens(estimate, remainingUsd);
    if (tokens === undefined || tokens === Infinity) return undefined;
    estimate = withOutputLimit(estimate, tokens);
    fittedToKey = true;
    return estimate.worstCaseUsd;
  });
  // The output limit goes to the provider when it was lowered, or when a budget rests on our
  // default bound alone (a token limit alone needs no output limit).
  const budgeted = budgetUsd !== undefined || reserved > 0;
  const lowered = estimate.outputTokens < initial.outputTokens || (!initial.outputBounded && budgeted);
  if (lowered) request.maxOutputTokens = estimate.outputTokens;
  const cap = Math.min(budgetUsd ?? Infinity, fittedToKey ? reserved : Infinity);
  const limit = Number.isFinite(cap) ? { budgetUsd: cap, pricing, inputTokens: estimate.inputTokens } : undefined;
  return { estimate, limit, translate: lowered || limit !== undefined };
}

/**
 * Applies the budgets to a non-text call: 400 `budget_exceeded` when its worst case exceeds
 * `max_budget_usd` (its quantities are the client's: nothing is lowered), then the key's
 * reservation. The estimate is also what the cost is measured against afterwards.
 */
export async function planOperationCall(pricing: Pricing, request: UnitRequest, budgetUsd: number | undefined, hold: SpendHold): Promise<OperationEstimate> {
  const estimate = await estimateOperation(pricing, request, { countTokens: budgetUsd !== undefined || hold.needsEstimate });
  assertOperationFits(estimate, budgetUsd);
  await hold.reserve(estimate.worstCaseUsd, 0);
  return estimate;
}
