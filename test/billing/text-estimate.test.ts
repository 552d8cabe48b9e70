import { expect } from 'chai';
import { planTextCall, readMaxBudget } from '../../src/billing/call-plan.js';
import { parsePricing } from '../../src/billing/pricing.js';
import type { SpendHold } from '../../src/billing/spend-hold.js';
import { noSpendHold } from '../../src/billing/spend-hold.js';
import { estimateTextCall, fitTextBudget, MIN_USEFUL_OUTPUT_TOKENS } from '../../src/billing/text-estimate.js';
import type { Conversation } from '../../src/codecs/internal.js';
import type { ModelSpec } from '../../src/config/types.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';

const model: ModelSpec = { id: 'sandbox/echo-1', provider: 'sandbox', endpoints: [], max_output_tokens: 8192, context_length: 131072 };
const pricing = parsePricing({ prompt: '0.000001', completion: '0.000002', input_cache_write: '0.00000125', request: '0.0001' });

function conversation(maxOutputTokens?: number): Conversation {
  return { model: model.id, system: [], stream: false, maxOutputTokens, messages: [{ role: 'user', parts: [{ type: 'text', text: 'Tell me a story about a dragon.' }] }] };
}

function thrown(fn: () => unknown): unknown {
  try { fn(); } catch (e) { return e; }
  return undefined;
}

describe('billing/text-estimate', () => {
  describe('estimateTextCall', () => {
    it('bounds output by the request limit, else the model limit, at the dearest rates', async () => {
      const e = await estimateTextCall(conversation(100), model, pricing);
      expect(e.outputTokens).to.equal(100);
      expect(e.worstCaseUsd).to.be.closeTo(e.inputTokens * 0.00000125 + 0.0001 + 100 * 0.000002, 1e-12);
      expect((await estimateTextCall(conversation(), model, pricing)).outputTokens).to.equal(8192);
    });

    it('marks output unbounded when neither the request nor the catalog limits it', async () => {
      const e = await estimateTextCall(conversation(), { id: 'x/y', provider: 'x', endpoints: [] }, pricing);
      expect(e.outputBounded).to.equal(false);
    });
  });

  describe('fitTextBudget', () => {
    it('keeps the estimate when the worst case fits', async () => {
      const e = await estimateTextCall(conversation(10), model, pricing);
      expect(fitTextBudget(e, 1)).to.equal(e);
    });

    it('lowers the output limit to what the budget leaves', async () => {
      const e = await estimateTextCall(conversation(), model, pricing);
      const budget = e.fixedUsd + 100 * 0.000002;
      const fitted = fitTextBudget(e, budget);
      expect(fitted.outputTokens).to.equal(100);
      expect(fitted.worstCaseUsd).to.be.at.most(budget + 1e-12);
    });

    it('refuses with 400 budget_exceeded and the estimate when no useful answer fits', async () => {
      const e = await estimateTextCall(conversation(), model, pricing);
      const err = thrown(() => fitTextBudget(e, e.fixedUsd + (MIN_USEFUL_OUTPUT_TOKENS - 1) * 0.000002));
      expect(isGatewayError(err) && err.status).to.equal(400);
      expect(isGatewayError(err) && err.code).to.equal('budget_exceeded');
      expect(isGatewayError(err) && err.details?.estimate_usd).to.equal(e.worstCaseUsd);
    });
  });
});

describe('billing/call-plan', () => {
  describe('readMaxBudget', () => {
    it('reads a positive number and refuses anything else', async () => {
      expect(readMaxBudget({ max_budget_usd: 0.5 })).to.equal(0.5);
      expect(readMaxBudget({})).to.equal(undefined);
      const err = thrown(() => readMaxBudget({ max_budget_usd: '1' }));
      expect(isGatewayError(err) && err.code).to.equal('validation_failed');
    });
  });

  describe('planTextCall', () => {
    it('leaves the request alone when no budget applies', async () => {
      const request = conversation();
      const plan = await planTextCall(request, model, pricing, undefined, noSpendHold);
      expect(plan.translate).to.equal(false);
      expect(request.maxOutputTokens).to.equal(undefined);
    });

    it('lowers maxOutputTokens and sets a stream limit under max_budget_usd', async () => {
      const request = conversation();
      const e = await estimateTextCall(request, model, pricing);
      const plan = await planTextCall(request, model, pricing, e.fixedUsd + 50 * 0.000002, noSpendHold);
      expect(request.maxOutputTokens).to.equal(50);
      expect(plan.translate).to.equal(true);
      expect(plan.limit?.budgetUsd).to.equal(e.fixedUsd + 50 * 0.000002);
    });

    it('fits the output to what is left of the key budget when the worst case is refused', async () => {
      const request = conversation();
      const reserved: number[] = [];
      const hold: SpendHold = {
        needsEstimate: true,
        async reserve(worst, _tokens, fit) {
          const smaller = fit?.(0.001);
          reserved.push(worst, smaller ?? -1);
          return smaller ?? 0;
        },
        settle: async () => undefined,
      };
      const plan = await planTextCall(request, model, pricing, undefined, hold);
      expect(reserved[1]).to.be.at.most(0.001);
      expect(request.maxOutputTokens).to.be.lessThan(8192);
      expect(plan.limit?.budgetUsd).to.equal(reserved[1]);
    });
  });
});
