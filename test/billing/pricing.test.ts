import { expect } from 'chai';
import { hasPrices, outputTokenPrice, parsePricing, priceUnits } from '../../src/billing/pricing.js';
import { formatUsd, fromNanoUsd, toNanoUsd, toNanoUsdCeil } from '../../src/billing/usd.js';

describe('billing/pricing', () => {
  describe('parsePricing', () => {
    it('turns OpenRouter-style decimal strings into numbers per unit', () => {
      const p = parsePricing({ prompt: '0.000001', completion: '0.000002', input_cache_read: '0.0000001', image: '0.01' });
      expect(p).to.deep.equal({ prompt: 0.000001, completion: 0.000002, input_cache_read: 0.0000001, image: 0.01 });
      expect(Object.isFrozen(p)).to.equal(true);
    });

    it('leaves out unknown units and malformed or negative prices', () => {
      const p = parsePricing({ prompt: 'abc', completion: '-1', web_search: '0.01', request: '', image: '0.5' });
      expect(p).to.deep.equal({ image: 0.5 });
    });

    it('returns an empty pricing when the model has none', () => {
      expect(parsePricing(undefined)).to.deep.equal({});
      expect(hasPrices(parsePricing(undefined))).to.equal(false);
    });
  });

  describe('priceUnits', () => {
    it('sums quantity x price over priced units only', () => {
      const p = parsePricing({ prompt: '0.000001', image: '0.01' });
      expect(priceUnits({ prompt: 1000, image: 3, completion: 500 }, p)).to.be.closeTo(0.031, 1e-12);
    });
  });

  describe('outputTokenPrice', () => {
    it('is the dearer of completion and internal_reasoning', () => {
      expect(outputTokenPrice(parsePricing({ completion: '0.00001', internal_reasoning: '0.00002' }))).to.equal(0.00002);
      expect(outputTokenPrice(parsePricing({ completion: '0.00001' }))).to.equal(0.00001);
    });
  });
});

describe('billing/usd', () => {
  describe('formatUsd', () => {
    it('writes plain decimals, never exponent notation', () => {
      expect(formatUsd(4e-8)).to.equal('0.00000004');
      expect(formatUsd(0.1 + 0.2)).to.equal('0.3');
      expect(formatUsd(0)).to.equal('0');
      expect(formatUsd(12.5)).to.equal('12.5');
    });
  });

  describe('toNanoUsd', () => {
    it('converts to integer nano-dollars without float drift', () => {
      expect(toNanoUsd(0.01)).to.equal(10_000_000);
      expect(toNanoUsdCeil(0.01)).to.equal(10_000_000);
      expect(toNanoUsdCeil(0.0000000001)).to.equal(1);
      expect(fromNanoUsd(30_000_000)).to.equal(0.03);
    });
  });
});
