import { expect } from 'chai';
import { budgetExceeded, budgetExhausted } from '../../src/billing/billing-errors.js';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { budgetPhrase, withBudgetSkips } from '../../src/routing/budget-skips.js';

describe('routing/budget-skips', () => {
  const upstream503 = new GatewayError(503, 'overloaded_error', 'upstream_overloaded', "Provider 'openai' answered 503: busy", { provider: 'openai' }, { 'Retry-After': '3' });
  const tooDear = budgetExceeded(0.0004, 0.0001, {});
  const keyBudget = budgetExhausted({ key: 'ci', period: 'day', budget_usd: 1, used_usd: 0.9999, needed_usd: 0.002, resets_in_seconds: 60 });

  it('keeps the primary\'s failure and names each fallback skipped for budget, with reason `budget`', () => {
    const e = withBudgetSkips(upstream503, [{ model: 'openai/gpt-6.2-astra', error: tooDear }]) as GatewayError;
    expect([e.status, e.type, e.code]).to.deep.equal([503, 'overloaded_error', 'upstream_overloaded']);
    expect(e.headers).to.deep.equal({ 'Retry-After': '3', 'x-gateway-fallback-reason': 'budget' });
    expect(e.message).to.equal("Provider 'openai' answered 503: busy. Not tried because it does not fit the budget: 'openai/gpt-6.2-astra' (worst case 0.0004 USD > max_budget_usd 0.0001 USD).");
    expect(e.details).to.deep.include({ provider: 'openai' });
    expect((e.details as { skipped_for_budget: unknown[] }).skipped_for_budget).to.deep.equal([{ model: 'openai/gpt-6.2-astra', code: 'budget_exceeded', estimate_usd: 0.0004, max_budget_usd: 0.0001 }]);
  });

  it('leaves an error alone when nothing else was skipped: no skip, or the skip is the error itself', () => {
    expect(withBudgetSkips(upstream503, [])).to.equal(upstream503);
    expect(withBudgetSkips(tooDear, [{ model: 'a/x', error: tooDear }])).to.equal(tooDear);
  });

  it('names the other skipped models when the primary\'s own budget refusal is the answer', () => {
    const e = withBudgetSkips(tooDear, [{ model: 'a/x', error: tooDear }, { model: 'b/y', error: keyBudget }, { model: 'c/z', error: budgetExceeded(0.5, 0.0001, {}) }]) as GatewayError;
    expect([e.status, e.code, e.headers?.['x-gateway-fallback-reason']]).to.deep.equal([400, 'budget_exceeded', 'budget']);
    expect(e.message).to.include("Not tried because they do not fit the budget: 'b/y' (needs up to 0.002 USD; key 'ci' has used 0.9999 USD of its day budget of 1 USD), 'c/z' (worst case 0.5 USD > max_budget_usd 0.0001 USD).");
    expect(e.message).not.to.include("'a/x'");
  });

  it('phrases a refusal that is not a known budget error by its message', () => {
    expect(budgetPhrase(new GatewayError(402, 'billing_error', null, 'over quota'))).to.equal('over quota');
    expect(budgetPhrase(new Error('x'))).to.equal('budget');
  });
});
