import { expect } from 'chai';
import { createMemoryResponseCache } from '../../src/store/response-cache.js';

describe('store/response-cache: the memory cache (LRU bounded by bytes)', () => {
  it('keeps values for their TTL and reports when they were stored', async () => {
    let now = 1_000_000;
    const cache = createMemoryResponseCache({ maxEntryBytes: 100, maxTotalBytes: 1000 }, () => now);
    await cache.set('a', 'value', 10);
    expect(await cache.get('a')).to.deep.equal({ value: 'value', storedAt: 1_000_000 });
    now += 9_999;
    expect((await cache.get('a'))?.value).to.equal('value');
    now += 1;
    expect(await cache.get('a'), 'expired').to.equal(undefined);
  });

  it('refuses entries over max_entry_bytes (counted in UTF-8 bytes)', async () => {
    const cache = createMemoryResponseCache({ maxEntryBytes: 10, maxTotalBytes: 1000 });
    await cache.set('big', 'é'.repeat(6), 60);
    expect(await cache.get('big')).to.equal(undefined);
    expect(cache.fits(10)).to.equal(true);
    expect(cache.fits(11)).to.equal(false);
  });

  it('evicts the least recently used entries once max_total_bytes is passed', async () => {
    const cache = createMemoryResponseCache({ maxEntryBytes: 100, maxTotalBytes: 30 });
    await cache.set('a', 'x'.repeat(10), 60);
    await cache.set('b', 'x'.repeat(10), 60);
    await cache.set('c', 'x'.repeat(10), 60);
    expect(await cache.get('a'), 'a read: now the most recent').to.not.equal(undefined);
    await cache.set('d', 'x'.repeat(10), 60);
    expect(await cache.get('b'), 'b was the least recently used').to.equal(undefined);
    for (const k of ['a', 'c', 'd']) expect(await cache.get(k), k).to.not.equal(undefined);
    await cache.set('c', 'y'.repeat(25), 60);
    expect((await cache.get('c'))?.value).to.equal('y'.repeat(25));
    expect(await cache.get('a')).to.equal(undefined);
    expect(await cache.get('d')).to.equal(undefined);
  });
});
