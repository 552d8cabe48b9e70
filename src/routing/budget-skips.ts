import { GatewayError, isGatewayError } from '../errors/gateway-error.js';

/** A target the loop did not try because its price could not fit a budget. */
export interface BudgetSkip {
  readonly model: string;
  /** The budget check's refusal (400 budget_exceeded or 402 budget_exhausted). */
  readonly error: unknown;
}

/**
 * The error a request ends with, telling what was not tried for budget (issue 27): when a
 * fallback was skipped because it could not fit the budget, the answer carries
 * `x-gateway-fallback-reason: budget`, and its message names each skipped model and the budget
 * it did not fit, even when what the client gets is the primary's own failure. Returns `error`
 * unchanged when nothing else was skipped (or it is not a GatewayError).
 */
export function withBudgetSkips(error: unknown, skips: readonly BudgetSkip[]): unknown {
  const others = skips.filter((s) => s.error !== error);
  if (others.length === 0 || !isGatewayError(error)) return error;
  const said = others.map((s) => `'${s.model}' (${budgetPhrase(s.error)})`).join(', ');
  const verb = others.length === 1 ? 'it does' : 'they do';
  return new GatewayError(
    error.status, error.type, error.code,
    `${sentence(error.message)} Not tried because ${verb} not fit the budget: ${said}.`,
    { ...error.details, skipped_for_budget: others.map((s) => ({ model: s.model, code: isGatewayError(s.error) ? s.error.code : null, ...(isGatewayError(s.error) ? s.error.details : {}) })) },
    { ...error.headers, 'x-gateway-fallback-reason': 'budget' },
  );
}

/** A message ending as a sentence, so more can follow. */
function sentence(message: string): string {
  const m = message.trimEnd();
  return /[.!?]$/.test(m) ? m : `${m}.`;
}

/** What budget a refusal was about, in a few words (from its details; its message otherwise). */
export function budgetPhrase(e: unknown): string {
  if (!isGatewayError(e)) return 'budget';
  const d = e.details ?? {};
  const usd = (v: unknown) => (typeof v === 'number' ? `${Number(v.toFixed(6))} USD` : '? USD');
  if (e.code === 'budget_exceeded') return `worst case ${usd(d.estimate_usd)} > max_budget_usd ${usd(d.max_budget_usd)}`;
  if (e.code === 'budget_exhausted') {
    const who = typeof d.team === 'string' ? `team '${d.team}'` : `key '${String(d.key)}'`;
    return `needs up to ${usd(d.needed_usd)}; ${who} has used ${usd(d.used_usd)} of its ${String(d.period)} budget of ${usd(d.budget_usd)}`;
  }
  return e.message;
}
