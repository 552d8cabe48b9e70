import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { toNanoUsd } from '../../../src/billing/usd.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { countKeys, startRedisChild, type RedisChild } from '../../store/support/redis.js';
import { errorCode, post } from './support/client.js';
import { newKey, writeProject, type TestKey } from './support/project.js';

const chat = { model: 'sandbox/echo-1', max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] };

/** Waits until `fn` resolves to true (the store reconnects in the background). */
async function eventually(fn: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('e2e/budget: when Redis goes away (own redis-server child)', function () {
  this.timeout(60_000);
  const limited: TestKey = { key: newKey('limited'), name: 'limited', rpm: 1000, budget: { usd: 10, period: 'day' } };
  const unlimited: TestKey = { key: newKey('unlimited'), name: 'unlimited' };
  let redis: RedisChild;

  before(async () => { redis = await startRedisChild(); });
  after(async () => { await redis.stop(); });

  describe('store.on_error: open', () => {
    let gw: TestGateway;
    before(async () => {
      if (!redis.running()) await redis.start();
      gw = await startGateway({ configPath: writeProject({ keys: [limited], store: { url: `${redis.url}?prefix=open:`, on_error: 'open' } }) });
    });
    after(() => gw.close());

    it('keeps serving with per-instance limits and returns to Redis when it is back', async () => {
      expect((await post(`${gw.url}/v1/chat/completions`, limited.key, chat)).status).to.equal(200);
      expect(await countKeys(redis.url, 'open:')).to.be.greaterThan(0);
      await redis.stop();
      const down = await post(`${gw.url}/v1/chat/completions`, limited.key, chat);
      expect(down.status).to.equal(200);
      expect((down.json.usage as { cost: number }).cost).to.be.greaterThan(0);
      expect((await fetch(`${gw.url}/v1/models`)).status).to.equal(200);
      await redis.start(); // an empty Redis: what is written next proves it is used again
      await eventually(async () => (await post(`${gw.url}/v1/chat/completions`, limited.key, chat)).status === 200 && (await countKeys(redis.url, 'open:')) > 0);
    });
  });

  describe('store.on_error: closed', () => {
    let gw: TestGateway;
    before(async () => {
      if (!redis.running()) await redis.start();
      gw = await startGateway({ configPath: writeProject({ keys: [limited, unlimited], store: { url: `${redis.url}?prefix=closed:`, on_error: 'closed' } }) });
    });
    after(() => gw.close());

    it('answers 503 store_unavailable while Redis is down and recovers when it returns', async () => {
      expect((await post(`${gw.url}/v1/chat/completions`, limited.key, chat)).status).to.equal(200);
      await redis.stop();
      const down = await post(`${gw.url}/v1/chat/completions`, limited.key, chat);
      expect(down.status).to.equal(503);
      expect(errorCode(down.json)).to.equal('store_unavailable');
      expect(down.headers.get('retry-after')).to.equal('1');
      const messages = await post(`${gw.url}/v1/messages`, limited.key, chat);
      expect(messages.status).to.equal(503);
      expect(messages.json.type).to.equal('error');
      expect((await fetch(`${gw.url}/v1/models`)).status).to.equal(503);
      await redis.start();
      await eventually(async () => (await post(`${gw.url}/v1/chat/completions`, limited.key, chat)).status === 200);
      expect((await fetch(`${gw.url}/v1/models`)).status).to.equal(200);
    });

    it('serves a key no limit or budget governs while Redis is down, and writes its spend back', async () => {
      await redis.stop();
      const served = await post(`${gw.url}/v1/chat/completions`, unlimited.key, chat);
      expect(served.status).to.equal(200);
      const cost = Number(served.headers.get('x-gateway-cost'));
      expect(cost).to.be.greaterThan(0);
      expect((await post(`${gw.url}/v1/chat/completions`, limited.key, chat)).status).to.equal(503);
      await redis.start(); // empty: what appears was written back from the journal
      const owner = createHash('sha256').update(unlimited.key).digest('hex');
      const probe = new Redis(redis.url);
      try {
        await eventually(async () => Number(await probe.hget(`closed:{${owner}}:spend:total`, 'spent')) === toNanoUsd(cost));
        expect(await probe.hget(`closed:{${owner}}:spend:total`, 'requests')).to.equal('1');
      } finally {
        probe.disconnect();
      }
    });
  });
});
