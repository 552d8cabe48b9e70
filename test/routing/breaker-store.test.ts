import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { createMemoryBreakerStore, type BreakerStore } from '../../src/routing/breaker-store.js';
import { resolvePolicy } from '../../src/routing/policy.js';
import { createRedisBreakerStore } from '../../src/routing/redis-breaker-store.js';
import { connectRedis, type RedisConnection } from '../../src/store/redis-connection.js';

const policy = resolvePolicy([{ breaker: { failures: 3, window_s: 30, cooldown_s: 0.3 } }]).breaker;

/** The same contract for every breaker store (real clocks: the cooldown is 300 ms). */
function contract(name: string, make: () => BreakerStore) {
  describe(`${name} breaker store`, () => {
    it('opens after the threshold, lets exactly one probe through after the cooldown, and closes on its success', async () => {
      const store = make();
      const key = `p/${randomBytes(3).toString('hex')}`;
      for (let i = 0; i < 2; i++) await store.record(key, false, policy);
      expect(await store.check(key, policy)).to.equal('closed');
      expect(await store.cooldownLeftMs(key, policy), 'closed: nothing to wait for').to.equal(0);
      await store.record(key, false, policy);
      expect(await store.check(key, policy)).to.equal('open');
      const left = await store.cooldownLeftMs(key, policy);
      expect(left, 'open: the cooldown left').to.be.within(200, 300);
      await new Promise((r) => setTimeout(r, 350));
      expect(await store.cooldownLeftMs(key, policy), 'cooldown over: the probe is due').to.equal(0);
      expect(await store.check(key, policy)).to.equal('probe');
      expect(await store.cooldownLeftMs(key, policy), 'a probe in flight holds the others for its own cooldown').to.be.within(200, 300);
      expect(await store.check(key, policy), 'one probe at a time').to.equal('open');
      await store.record(key, true, policy);
      expect(await store.check(key, policy)).to.equal('closed');
    });

    it('re-opens when the probe fails, and a success resets the count of failures in a row', async () => {
      const store = make();
      const key = `p/${randomBytes(3).toString('hex')}`;
      for (let i = 0; i < 3; i++) await store.record(key, false, policy);
      await new Promise((r) => setTimeout(r, 350));
      expect(await store.check(key, policy)).to.equal('probe');
      await store.record(key, false, policy);
      expect(await store.check(key, policy)).to.equal('open');

      const other = `p/${randomBytes(3).toString('hex')}`;
      await store.record(other, false, policy);
      await store.record(other, false, policy);
      expect(await store.check(other, policy)).to.equal('closed');
      await store.record(other, true, policy);
      await store.record(other, false, policy);
      await store.record(other, false, policy);
      expect(await store.check(other, policy)).to.equal('closed');
    });
  });
}

describe('routing/breaker-store', () => {
  contract('memory', () => createMemoryBreakerStore());
  let conn: RedisConnection;
  before(async () => {
    conn = connectRedis(`redis://127.0.0.1:6379?prefix=gw-test-brk-${randomBytes(4).toString('hex')}:`);
    await conn.ready(2000);
  });
  after(async () => {
    const keys = await conn.client.keys(`${conn.prefix}*`);
    if (keys.length > 0) await conn.client.del(...keys);
    await conn.close();
  });
  contract('redis', () => createRedisBreakerStore(conn, createMemoryBreakerStore()));
});
