import { expect } from 'chai';
import { createMemoryRecordStore } from '../../src/store/file-store.js';
import { createMemoryRateLimiter } from '../../src/store/rate-limiter.js';
import { connectRedis, type RedisConnection } from '../../src/store/redis-connection.js';
import { createStoreGuard } from '../../src/store/redis-fallback.js';
import { createRedisRateLimiter } from '../../src/store/redis-rate-limiter.js';
import { createRedisRecordStore } from '../../src/store/redis-record-store.js';
import { createRedisSpendLedger } from '../../src/store/redis-spend-ledger.js';
import { countKeys, deletePrefix, SHARED_REDIS, uniquePrefix } from './support/redis.js';

describe('store/redis (127.0.0.1:6379)', () => {
  const prefix = uniquePrefix('store');
  let a: RedisConnection;
  let b: RedisConnection;

  before(async () => {
    a = connectRedis(`${SHARED_REDIS}?prefix=${encodeURIComponent(prefix)}`);
    b = connectRedis(`${SHARED_REDIS}?prefix=${encodeURIComponent(prefix)}`);
    expect(await a.ready(5000)).to.equal(true);
    expect(await b.ready(5000)).to.equal(true);
  });

  after(async () => {
    await a.close();
    await b.close();
    await deletePrefix(SHARED_REDIS, prefix);
    expect(await countKeys(SHARED_REDIS, prefix)).to.equal(0);
  });

  describe('createRedisRateLimiter', () => {
    it('holds one limit across two connections (two instances)', async () => {
      const guard = createStoreGuard('closed');
      const la = createRedisRateLimiter(a, guard, createMemoryRateLimiter());
      const lb = createRedisRateLimiter(b, guard, createMemoryRateLimiter());
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? la : lb).hit('k1', 10, 60)));
      expect(results.filter((r) => r.allowed)).to.have.length(10);
      const refused = results.find((r) => !r.allowed)!;
      expect(refused.retryAfterSeconds).to.be.within(1, 60);
      expect(refused.remaining).to.equal(0);
    });

    it('counts costs and negative true-ups', async () => {
      const limiter = createRedisRateLimiter(a, createStoreGuard('closed'), createMemoryRateLimiter());
      expect((await limiter.hit('tpm', 100, 60, 80)).allowed).to.equal(true);
      expect((await limiter.hit('tpm', 100, 60, 30)).allowed).to.equal(false);
      await limiter.hit('tpm', Number.MAX_SAFE_INTEGER, 60, -50);
      expect((await limiter.hit('tpm', 100, 60, 30)).allowed).to.equal(true);
    });
  });

  describe('createRedisSpendLedger', () => {
    it('lets exactly 5 of 20 concurrent reservations through a budget that fits 5', async () => {
      const guard = createStoreGuard('closed');
      const la = createRedisSpendLedger(a, guard);
      const lb = createRedisSpendLedger(b, guard);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? la : lb).reserve('owner:day:x', 10_000_000, 50_000_000, 3600, `r${i}`)));
      expect(results.filter((r) => r.ok)).to.have.length(5);
      expect(await la.read('owner:day:x')).to.deep.equal({ usedNano: 50_000_000, spentNano: 0, requests: 0 });
    });

    it('settles to the actual cost on every account named, with big amounts exact', async () => {
      const ledger = createRedisSpendLedger(a, createStoreGuard('closed'));
      const big = 250_000 * 1e9; // 250,000 USD in nano-dollars: beyond Lua's %.14g
      expect((await ledger.reserve('o:month:m', big, big, 60, 'big')).ok).to.equal(true);
      await ledger.settle([{ account: 'o:month:m', reservedNano: big, ttlSeconds: 60 }, { account: 'o:total', reservedNano: 0, ttlSeconds: 0 }], 123_456_789_012_345, 'big');
      expect(await ledger.read('o:month:m')).to.deep.equal({ usedNano: 123_456_789_012_345, spentNano: 123_456_789_012_345, requests: 1 });
      expect((await ledger.read('o:total')).spentNano).to.equal(123_456_789_012_345);
      expect(await a.client.ttl(`${prefix}{o}:spend:month:m`)).to.be.within(1, 60);
    });
  });

  describe('holds', () => {
    it('applies a retried reservation and a retried settlement once', async () => {
      const ledger = createRedisSpendLedger(a, createStoreGuard('closed'));
      expect((await ledger.reserve('h1:total', 300, 1000, 0, 'hold-a')).usedNano).to.equal(300);
      expect((await ledger.reserve('h1:total', 300, 1000, 0, 'hold-a')).usedNano).to.equal(300);
      await ledger.settle([{ account: 'h1:total', reservedNano: 300, ttlSeconds: 0 }], 120, 'hold-a');
      await ledger.settle([{ account: 'h1:total', reservedNano: 300, ttlSeconds: 0 }], 120, 'hold-a');
      expect(await ledger.read('h1:total')).to.deep.equal({ usedNano: 120, spentNano: 120, requests: 1 });
      // A reservation that reaches Redis after its own settlement holds nothing.
      await ledger.reserve('h1:total', 300, 1000, 0, 'hold-a');
      expect((await ledger.read('h1:total')).usedNano).to.equal(120);
      await ledger.close();
    });

    it('releases a hold nobody settles once its TTL passes', async () => {
      const ledger = createRedisSpendLedger(a, createStoreGuard('closed'), { holdTtlSeconds: 1 });
      expect((await ledger.reserve('h2:day:d', 900, 1000, 3600, 'lost')).ok).to.equal(true);
      expect((await ledger.reserve('h2:day:d', 200, 1000, 3600, 'second')).ok).to.equal(false);
      await new Promise((r) => setTimeout(r, 1100));
      expect(await ledger.read('h2:day:d')).to.deep.equal({ usedNano: 0, spentNano: 0, requests: 0 });
      expect((await ledger.reserve('h2:day:d', 200, 1000, 3600, 'third')).ok).to.equal(true);
      await ledger.close();
    });

    it('keeps every key of one owner under the owner hash tag', async () => {
      const ledger = createRedisSpendLedger(a, createStoreGuard('closed'));
      await ledger.reserve('tagged:day:x', 10, 100, 60, 'h');
      await ledger.settle([{ account: 'tagged:day:x', reservedNano: 10, ttlSeconds: 60 }, { account: 'tagged:total', reservedNano: 0, ttlSeconds: 0 }], 5, 'h');
      const keys = await a.client.keys(`${prefix}{tagged}*`);
      expect(keys.sort()).to.deep.equal([`${prefix}{tagged}:done:h`, `${prefix}{tagged}:spend:day:x`, `${prefix}{tagged}:spend:total`].sort());
      await ledger.close();
    });
  });

  describe('createRedisRecordStore', () => {
    it('shares records between instances and expires them when asked', async () => {
      const guard = createStoreGuard('closed');
      const sa = createRedisRecordStore<{ n: number }>(a, guard, 'job', createMemoryRecordStore(), 120);
      const sb = createRedisRecordStore<{ n: number }>(b, guard, 'job', createMemoryRecordStore(), 120);
      await sa.put('j1', { n: 1 });
      expect(await sb.get('j1')).to.deep.equal({ n: 1 });
      expect(await sb.get('missing')).to.equal(undefined);
      expect(await a.client.ttl(`${prefix}job:j1`)).to.be.within(1, 120);
    });
  });
});
