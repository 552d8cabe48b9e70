import { budgetExceeded } from './billing-errors.js';
import { estimateUnit, measureUnit, type UnitEstimate, type UnitRequest, type UnitResult } from './operation-units.js';
import { PRICING_UNITS, priceUnits, type Pricing, type PricingUnit, type Units } from './pricing.js';
import { roundUsd } from './usd.js';

/** The worst case of a non-text call, per priced unit. */
export interface OperationEstimate {
  readonly estimates: Readonly<Partial<Record<PricingUnit, UnitEstimate>>>;
  /** Most the call itself can cost (bound units excluded: they are metered at run time). */
  readonly worstCaseUsd: number;
}

/**
 * Estimates every unit the model is priced by (others cost nothing and are not looked at).
 * With `countTokens: false` (no budget asks for the worst case) prompt tokens are not counted:
 * the tokenizer only runs when an estimate matters.
 */
export async function estimateOperation(pricing: Pricing, request: UnitRequest, options: { countTokens: boolean } = { countTokens: true }): Promise<OperationEstimate> {
  const estimates: Partial<Record<PricingUnit, UnitEstimate>> = {};
  const units: Units = {};
  for (const unit of PRICING_UNITS) {
    if (!pricing[unit]) continue;
    const e = unit === 'prompt' && !options.countTokens ? { quantity: 0 } : await estimateUnit(unit, request);
    estimates[unit] = e;
    if (!e.bound) units[unit] = e.quantity;
  }
  return { estimates, worstCaseUsd: roundUsd(priceUnits(units, pricing)) };
}

/** Refuses (400 budget_exceeded) a call whose worst case exceeds `max_budget_usd`. */
export function assertOperationFits(estimate: OperationEstimate, budgetUsd: number | undefined): void {
  if (budgetUsd === undefined || estimate.worstCaseUsd <= budgetUsd) return;
  const units = Object.fromEntries(Object.entries(estimate.estimates).filter(([, e]) => !e!.bound).map(([u, e]) => [u, e!.quantity]));
  throw budgetExceeded(estimate.worstCaseUsd, budgetUsd, { units });
}

/** What a non-text call cost: delivered quantities (from the result) x prices. */
export function measureOperationCost(pricing: Pricing, estimate: OperationEstimate, result: UnitResult, request: UnitRequest): number {
  const units: Units = {};
  for (const [unit, e] of Object.entries(estimate.estimates) as Array<[PricingUnit, UnitEstimate]>) {
    units[unit] = measureUnit(unit, result, request, e);
  }
  return roundUsd(priceUnits(units, pricing));
}
