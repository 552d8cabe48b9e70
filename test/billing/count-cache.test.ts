import { expect } from 'chai';
import { CountCache } from '../../src/billing/count-cache.js';
import { countBpeTokens, countTextsWorstCase, countTokensWorstCase } from '../../src/billing/token-counter.js';

describe('billing/count-cache', () => {
  it('keeps texts up to a total length, dropping the least recently used first', () => {
    const cache = new CountCache(30, 1);
    cache.set('a'.repeat(10), 1);
    cache.set('b'.repeat(10), 2);
    cache.set('c'.repeat(10), 3);
    expect(cache.get('a'.repeat(10))).to.equal(1); // used: now the most recent
    cache.set('d'.repeat(10), 4);
    expect(cache.get('b'.repeat(10))).to.equal(undefined);
    expect(cache.get('a'.repeat(10))).to.equal(1);
    expect(cache.get('c'.repeat(10))).to.equal(3);
    expect(cache.get('d'.repeat(10))).to.equal(4);
    expect(cache.size).to.equal(3);
  });

  it('does not keep texts shorter than its minimum or longer than its whole size', () => {
    const cache = new CountCache(20, 5);
    cache.set('abc', 1);
    cache.set('x'.repeat(21), 9);
    expect(cache.size).to.equal(0);
  });

  it('answers a text counted before with the same worst case, and counts the others in one batch', async () => {
    const system = 'You are a concise assistant that answers in one sentence.';
    const first = await countTextsWorstCase([system, 'Hello there, how are you today?']);
    const again = await countTextsWorstCase([system, 'A different question about gateways and budgets.', '']);
    expect(again[0]).to.equal(first[0]);
    expect(first[0]).to.equal(await countTokensWorstCase(system));
    expect(again[1]).to.equal(await countTokensWorstCase('A different question about gateways and budgets.'));
    expect(again[2]).to.equal(0);
    expect(first[0]).to.be.at.least(Math.ceil((await countBpeTokens(system)) * 1.1));
  });
});
