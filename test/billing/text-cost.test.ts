import { expect } from 'chai';
import { parsePricing } from '../../src/billing/pricing.js';
import { computeTextCost, unitsOfTextUsage } from '../../src/billing/text-cost.js';

describe('billing/text-cost', () => {
  const full = parsePricing({ prompt: '0.000003', completion: '0.000015', input_cache_read: '0.0000003', input_cache_write: '0.00000375', internal_reasoning: '0.00002', request: '0.001' });

  describe('unitsOfTextUsage', () => {
    it('bills cached and cache-written tokens at their own rates, never twice', () => {
      const units = unitsOfTextUsage({ inputTokens: 1000, outputTokens: 200, cachedInputTokens: 600, cacheWriteInputTokens: 300, reasoningTokens: 50 }, full);
      expect(units).to.deep.equal({ prompt: 100, input_cache_read: 600, input_cache_write: 300, completion: 150, internal_reasoning: 50, request: 1 });
      const input = (units.prompt ?? 0) + (units.input_cache_read ?? 0) + (units.input_cache_write ?? 0);
      expect(input).to.equal(1000);
    });

    it('bills cache reads and writes at the prompt rate when the model lists no cache prices', () => {
      const units = unitsOfTextUsage({ inputTokens: 1000, outputTokens: 10, cachedInputTokens: 600, cacheWriteInputTokens: 100 }, parsePricing({ prompt: '0.000001', completion: '0.000002' }));
      expect(units.prompt).to.equal(1000);
      expect(units.input_cache_read).to.equal(undefined);
    });

    it('bills reasoning as completion when internal_reasoning is not priced', () => {
      const units = unitsOfTextUsage({ inputTokens: 0, outputTokens: 100, reasoningTokens: 40 }, parsePricing({ completion: '0.00001' }));
      expect(units.completion).to.equal(100);
      expect(units.internal_reasoning).to.equal(undefined);
    });

    it('clamps inconsistent provider reports instead of billing negative tokens', () => {
      const units = unitsOfTextUsage({ inputTokens: 10, outputTokens: 5, cachedInputTokens: 50, reasoningTokens: 9 }, full);
      expect(units.prompt).to.equal(0);
      expect(units.input_cache_read).to.equal(10);
      expect(units.completion).to.equal(0);
      expect(units.internal_reasoning).to.equal(5);
    });
  });

  describe('computeTextCost', () => {
    it('prices every part of the usage', () => {
      const cost = computeTextCost({ inputTokens: 1000, outputTokens: 200, cachedInputTokens: 600, cacheWriteInputTokens: 300, reasoningTokens: 50 }, full);
      const expected = 100 * 0.000003 + 600 * 0.0000003 + 300 * 0.00000375 + 150 * 0.000015 + 50 * 0.00002 + 0.001;
      expect(cost).to.be.closeTo(expected, 1e-12);
    });

    it('is zero for a model without prices', () => {
      expect(computeTextCost({ inputTokens: 1000, outputTokens: 1000 }, parsePricing(undefined))).to.equal(0);
    });
  });
});
