import { expect } from 'chai';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { createMemoryRateLimiter } from '../../src/store/rate-limiter.js';
import { connectRedis, type RedisConnection } from '../../src/store/redis-connection.js';
import { createStoreGuard } from '../../src/store/redis-fallback.js';
import { createRedisRateLimiter } from '../../src/store/redis-rate-limiter.js';
import { createRedisSpendLedger } from '../../src/store/redis-spend-ledger.js';
import { createMemorySpendLedger } from '../../src/store/spend-ledger.js';
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
      const open = createRedisRateLimiter(conn, createStoreGuard('open'), local);
      const closed = createRedisRateLimiter(conn, createStoreGuard('closed'), createMemoryRateLimiter());
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

    it('settles a reservation taken during an outage on the ledger that took it', async () => {
      const local = createMemorySpendLedger();
      const ledger = createRedisSpendLedger(conn, createStoreGuard('open'), local);
      await redis.stop();
      await waitFor(async () => conn.client.status !== 'ready', 5000, 'disconnect');
      const r = await ledger.reserve('o:total', 100, 1000, 0);
      expect(r.ok).to.equal(true);
      await redis.start();
      await waitFor(async () => conn.client.status === 'ready', 10_000, 'reconnect');
      await ledger.settle([{ account: 'o:total', reservedNano: 100, ttlSeconds: 0, via: r.via }], 40);
      expect(await local.read('o:total')).to.deep.equal({ usedNano: 40, spentNano: 40, requests: 1 });
      expect(await ledger.read('o:total')).to.deep.equal({ usedNano: 0, spentNano: 0, requests: 0 });
    });
  });
});
