import { expect } from 'chai';
import { toNanoUsd } from '../../src/billing/usd.js';
import type { KeyEntry } from '../../src/compile/runtime.js';
import type { KeySpec } from '../../src/config/types.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { allowsModel, openKeySpend } from '../../src/calls/key-spend.js';
import { compileModelGlobs } from '../../src/compile/keys.js';
import { createMemoryRateLimiter } from '../../src/store/rate-limiter.js';
import { createMemorySpendLedger } from '../../src/store/spend-ledger.js';

function keyOf(spec: Partial<KeySpec>): KeyEntry {
  return { hash: Buffer.alloc(32, 1), spec: { name: 'k', sha256: '', ...spec } };
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try { await p; } catch (e) { return e; }
  return undefined;
}

describe('calls/key-spend', () => {
  describe('allowsModel', () => {
    it('matches * and ? globs literally otherwise', () => {
      const spec = compileModelGlobs(['sandbox/*', 'openai/gpt-4.1', 'x/model-?']);
      expect(allowsModel(spec, 'sandbox/echo-1')).to.equal(true);
      expect(allowsModel(spec, 'openai/gpt-4.1')).to.equal(true);
      expect(allowsModel(spec, 'openai/gpt-4x1')).to.equal(false);
      expect(allowsModel(spec, 'openai/gpt-4.1-mini')).to.equal(false);
      expect(allowsModel(spec, 'x/model-a')).to.equal(true);
      expect(allowsModel(spec, 'x/model-ab')).to.equal(false);
      expect(allowsModel(undefined, 'anything/at-all')).to.equal(true);
    });
  });

  describe('openKeySpend', () => {
    it('reserves the worst case, settles the real cost and records spend on the total account', async () => {
      const services = { limiter: createMemoryRateLimiter(), ledger: createMemorySpendLedger() };
      const hold = openKeySpend(keyOf({ budget: { usd: 1, period: 'total' } }), 'owner', services);
      expect(hold.needsEstimate).to.equal(true);
      expect(await hold.reserve(0.4, 10)).to.equal(0.4);
      expect((await services.ledger.read('owner:total')).usedNano).to.equal(toNanoUsd(0.4));
      await hold.settle(0.1, 20);
      await hold.settle(0.1, 20); // idempotent
      expect(await services.ledger.read('owner:total')).to.deep.equal({ usedNano: toNanoUsd(0.1), spentNano: toNanoUsd(0.1), requests: 1 });
    });

    it('offers what is left to fit(), else refuses with 402 budget_exhausted', async () => {
      const services = { limiter: createMemoryRateLimiter(), ledger: createMemorySpendLedger() };
      const key = keyOf({ budget: { usd: 1, period: 'day' } });
      await openKeySpend(key, 'o', services).reserve(0.7, 0);
      let offered = -1;
      const reserved = await openKeySpend(key, 'o', services).reserve(0.5, 0, (left) => { offered = left; return left; });
      expect(offered).to.be.closeTo(0.3, 1e-9);
      expect(reserved).to.be.closeTo(0.3, 1e-9);
      const err = await rejection(openKeySpend(key, 'o', services).reserve(0.1, 0, () => undefined));
      expect(isGatewayError(err) && err.status).to.equal(402);
      expect(isGatewayError(err) && err.code).to.equal('budget_exhausted');
      expect(isGatewayError(err) && Number(err.headers?.['Retry-After'])).to.be.greaterThan(0);
    });

    it('charges the prompt against tpm before the call and trues it up after', async () => {
      const services = { limiter: createMemoryRateLimiter(), ledger: createMemorySpendLedger() };
      const key = keyOf({ tpm: 100 });
      const a = openKeySpend(key, 'o', services);
      await a.reserve(0, 60);
      await a.settle(0, 30); // the call used 30 tokens in all: 30 are given back
      const b = openKeySpend(key, 'o', services);
      await b.reserve(0, 70);
      const err = await rejection(openKeySpend(key, 'o', services).reserve(0, 10));
      expect(isGatewayError(err) && err.status).to.equal(429);
      expect(isGatewayError(err) && err.headers?.['Retry-After']).to.match(/^\d+$/);
    });

    it('records spend for keys without limits too', async () => {
      const services = { limiter: createMemoryRateLimiter(), ledger: createMemorySpendLedger() };
      const hold = openKeySpend(keyOf({}), 'plain', services);
      expect(hold.needsEstimate).to.equal(false);
      await hold.settle(0.25, 0);
      expect((await services.ledger.read('plain:total')).spentNano).to.equal(toNanoUsd(0.25));
    });

    it('gives back the rpm request of a call refused with 402 for budget', async () => {
      const services = { limiter: createMemoryRateLimiter(), ledger: createMemorySpendLedger() };
      const key = keyOf({ rpm: 2, budget: { usd: 0.001, period: 'day' } });
      // The keyPolicy step counted this request on rpm before the body was read.
      expect((await services.limiter.hit('rpm:o', 2, 60)).remaining).to.equal(1);
      const err = await rejection(openKeySpend(key, 'o', services).reserve(1, 0));
      expect(isGatewayError(err) && err.status).to.equal(402);
      expect((await services.limiter.hit('rpm:o', 2, 60)).remaining).to.equal(1);
      expect((await services.limiter.hit('rpm:o', 2, 60)).allowed).to.equal(true);
    });
  });
});
