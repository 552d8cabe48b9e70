import { expect } from 'chai';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { createMemoryRateLimiter } from '../../src/store/rate-limiter.js';
import { connectRedis, type RedisConnection } from '../../src/store/redis-connection.js';
import { createStoreGuard } from '../../src/store/redis-fallback.js';
import { createRedisRateLimiter } from '../../src/store/redis-rate-limiter.js';
import { createRedisSpendLedger } from '../../src/store/redis-spend-ledger.js';
import { startRedisChild, waitFor, type RedisChild } from './support/redis.js';

describe('store/redis-fallback (own redis-server child)', () => {
  let redis: RedisChild;
  let conn: RedisConnection;

  before(async () => {
    redis = await startRedisChild();
    conn = connectRedis(redis.url);
    expect(await conn.ready(5000)).to.equal(true);
  });

  after(async () => {
    await conn.close();
    await redis.stop();
  });

  describe('createStoreGuard', () => {
    it('fails open to memory while Redis is down, closed with 503 store_unavailable, and recovers', async () => {
      const local = createMemoryRateLimiter();
      const open = createRedisRateLimiter(conn, createStoreGuard('open', undefined, conn), local);
      const closed = createRedisRateLimiter(conn, createStoreGuard('closed', undefined, conn), createMemoryRateLimiter());
      expect((await open.hit('k', 100, 60)).remaining).to.equal(99);

      await redis.stop();
      await waitFor(async () => conn.client.status !== 'ready', 5000, 'disconnect');
      const started = Date.now();
      const served = await open.hit('k', 100, 60);
      expect(served.allowed).to.equal(true);
      expect(served.remaining).to.equal(99); // counted in this instance's memory
      expect(Date.now() - started).to.be.lessThan(1500);
      try {
        await closed.hit('k', 100, 60);
        expect.fail('closed must refuse');
      } catch (e) {
        expect(isGatewayError(e) && e.status).to.equal(503);
        expect(isGatewayError(e) && e.code).to.equal('store_unavailable');
        expect(isGatewayError(e) && e.headers?.['Retry-After']).to.equal('1');
      }

      await redis.start();
      await waitFor(async () => conn.client.status === 'ready', 10_000, 'reconnect');
      // The new Redis is empty: the shared counter starts over, and the closed guard serves again.
      expect((await closed.hit('k', 100, 60)).remaining).to.equal(99);
      expect((await open.hit('k', 100, 60)).remaining).to.equal(98);
    });

    it('journals a settlement Redis does not confirm and writes it back once (stalled Redis)', async () => {
      const ledger = createRedisSpendLedger(conn, createStoreGuard('open'), { journalIntervalMs: 200 });
      expect((await ledger.reserve('j:total', 500, 10_000, 0, 'h1')).ok).to.equal(true);
      redis.pause();
      try {
        // The script reaches the stalled server and times out here; it runs when Redis resumes.
        await ledger.settle([{ account: 'j:total', reservedNano: 500, ttlSeconds: 0 }], 321, 'h1');
        expect(ledger.journal.size()).to.equal(1);
      } finally {
        redis.resume();
      }
      await waitFor(async () => ledger.journal.size() === 0, 10_000, 'journal written back');
      expect(await ledger.read('j:total')).to.deep.equal({ usedNano: 321, spentNano: 321, requests: 1 });
      await ledger.close();
    });

    it('admits only its share of what was left while Redis is away, and writes the spend back', async () => {
      const ledger = createRedisSpendLedger(conn, createStoreGuard('open'), { instances: () => 2, journalIntervalMs: 200 });
      // 400 of 1000 used before the outage: this instance (of 2) may take 300 while Redis is away.
      expect((await ledger.reserve('s:total', 400, 1000, 0, 'before')).ok).to.equal(true);
      await ledger.settle([{ account: 's:total', reservedNano: 400, ttlSeconds: 0 }], 400, 'before');
      redis.pause();
      const taken: string[] = [];
      try {
        for (let i = 0; i < 5; i++) {
          const r = await ledger.reserve('s:total', 100, 1000, 0, `out-${i}`);
          if (r.ok) {
            taken.push(`out-${i}`);
            await ledger.settle([{ account: 's:total', reservedNano: 100, ttlSeconds: 0, via: r.via }], 100, `out-${i}`);
          }
          if (i === 0) expect(r.via).to.equal('local');
        }
      } finally {
        redis.resume();
      }
      expect(taken).to.deep.equal(['out-0', 'out-1', 'out-2']);
      await waitFor(async () => ledger.journal.size() === 0, 10_000, 'journal written back');
      expect(await ledger.read('s:total')).to.deep.equal({ usedNano: 700, spentNano: 700, requests: 4 });
      await ledger.close();
    });

    it('refuses reservations with 503 in closed mode, yet still writes the settlement back', async () => {
      const ledger = createRedisSpendLedger(conn, createStoreGuard('closed'), { journalIntervalMs: 200 });
      await redis.stop();
      await waitFor(async () => conn.client.status !== 'ready', 5000, 'disconnect');
      try {
        await ledger.reserve('c:total', 1, 10, 0, 'x');
        expect.fail('closed must refuse');
      } catch (e) {
        expect(isGatewayError(e) && e.code).to.equal('store_unavailable');
      }
      await ledger.settle([{ account: 'c:total', reservedNano: 0, ttlSeconds: 0 }], 77, 'unlimited-call');
      expect(ledger.journal.size()).to.equal(1);
      await redis.start();
      await waitFor(async () => ledger.journal.size() === 0, 10_000, 'journal written back');
      expect(await ledger.read('c:total')).to.deep.equal({ usedNano: 77, spentNano: 77, requests: 1 });
      await ledger.close();
    });
  });
});
