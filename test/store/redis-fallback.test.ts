import { expect } from 'chai';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { createMemoryRateLimiter } from '../../src/store/rate-limiter.js';
import { connectRedis, type RedisConnection } from '../../src/store/redis-connection.js';
import { createStoreGuard, SUSPECT_MS } from '../../src/store/redis-fallback.js';
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
    it('tries the store again SUSPECT_MS after a failure however many calls skip it meanwhile, one probe at a time', async () => {
      const guard = createStoreGuard('open');
      expect(await guard.run(async () => { throw new Error('connection lost'); }, async () => 'local')).to.equal('local');
      const failedAt = Date.now();
      // Steady traffic: each skipped call used to restart the pause, so the store was never tried again.
      let firstRemote = 0;
      while (!firstRemote && Date.now() - failedAt < 3000) {
        await guard.run(async () => { firstRemote = Date.now() - failedAt; return 'remote'; }, async () => 'local');
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(firstRemote).to.be.within(SUSPECT_MS, SUSPECT_MS + 300);
      expect(guard.failing?.()).to.equal(false);

      // After the next failure, one probe goes out; calls meanwhile skip the store.
      await guard.run(async () => { throw new Error('connection lost'); }, async () => 'local');
      await new Promise((r) => setTimeout(r, SUSPECT_MS + 20));
      let release!: () => void;
      const probe = guard.run(() => new Promise<string>((r) => { release = () => r('remote'); }), async () => 'local');
      let skippedRemote = 0;
      expect(await guard.run(async () => { skippedRemote++; return 'remote'; }, async () => 'local')).to.equal('local');
      expect(skippedRemote).to.equal(0);
      release();
      expect(await probe).to.equal('remote');
      expect(await guard.run(async () => 'remote', async () => 'local')).to.equal('remote');
    });

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

    it('admits an account first seen after Redis returned within its share of the used Redis reports (never 503)', async () => {
      // The fleet never catches up here, so this instance stays within its outage shares.
      const ledger = createRedisSpendLedger(conn, createStoreGuard('open', undefined, conn), { instances: () => 2, journalIntervalMs: 200, fleetCaughtUp: () => false });
      const other = createRedisSpendLedger(conn, createStoreGuard('open'), { journalIntervalMs: 200 });
      expect((await ledger.reserve('seen:total', 1, 1000, 0, 'seen-0')).ok).to.equal(true);
      await ledger.settle([{ account: 'seen:total', reservedNano: 1, ttlSeconds: 0 }], 1, 'seen-0');
      redis.pause();
      try {
        const local = await ledger.reserve('seen:total', 10, 1000, 0, 'seen-1');
        expect({ ok: local.ok, via: local.via }).to.deep.equal({ ok: true, via: 'local' });
        await ledger.settle([{ account: 'seen:total', reservedNano: 10, ttlSeconds: 0, via: local.via }], 10, 'seen-1');
        // During the outage an account never seen has no known remainder (the documented 503).
        const unseen = await ledger.reserve('new:total', 1, 1000, 0, 'new-0').then(() => undefined, (e: unknown) => e);
        expect(isGatewayError(unseen) && unseen.code).to.equal('store_unavailable');
      } finally {
        redis.resume();
      }
      await waitFor(async () => ledger.backlog() === 0 && !other.journal.size(), 10_000, 'outage work written back');
      // Another instance spends 400 of the new account's 1000 meanwhile.
      expect((await other.reserve('new:total', 400, 1000, 0, 'other-0')).ok).to.equal(true);
      await other.settle([{ account: 'new:total', reservedNano: 400, ttlSeconds: 0 }], 400, 'other-0');
      await new Promise((r) => setTimeout(r, SUSPECT_MS + 50));
      const decided: boolean[] = [];
      for (let i = 1; i <= 4; i++) {
        const r = await ledger.reserve('new:total', 100, 1000, 0, `new-${i}`);
        decided.push(r.ok);
        expect(r.via, 'Redis answers').to.equal(undefined);
        if (r.ok) await ledger.settle([{ account: 'new:total', reservedNano: 100, ttlSeconds: 0, via: r.via }], 100, `new-${i}`);
      }
      expect(ledger.inOutage(), 'still within outage shares').to.equal(true);
      // Its share: (1000 - 400) / 2 = 300, as Redis reported `used` in the same reply.
      expect(decided).to.deep.equal([true, true, true, false]);
      expect(await ledger.read('new:total')).to.deep.equal({ usedNano: 700, spentNano: 700, requests: 4 });
      await ledger.close();
      await other.close();
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
