import { expect } from 'chai';
import OpenAI from 'openai';
import { randomBytes } from 'node:crypto';
import type { TestGateway } from '../../helpers/gateway.js';
import { startKitUpstreams, startScenarioGateway, type KitUpstreams } from '../../kit/routing-gateway.js';
import { countKeys, deletePrefix, SHARED_REDIS, startRedisChild, uniquePrefix, type RedisChild } from '../../store/support/redis.js';

const CHAT = 'openai/gpt-4.1-mini';
const REALTIME = { secret: 'cache-test-realtime-secret' };

function ask(label: string) {
  return { model: CHAT, messages: [{ role: 'user' as const, content: `${label} ${randomBytes(4).toString('hex')}: what is the capital of France?` }] };
}

describe('e2e/cache: the response cache in Redis (cache.store: redis)', function () {
  this.timeout(40_000);
  let kit: KitUpstreams;

  before(async () => { kit = await startKitUpstreams(); });
  after(async () => { await kit?.close(); });
  beforeEach(() => kit.reset());

  it('two gateway instances share hits; entries carry Redis TTLs', async () => {
    const prefix = uniquePrefix('cache');
    const store = { url: `${SHARED_REDIS}/?prefix=${encodeURIComponent(prefix)}`, on_error: 'open' };
    const scenario = { store, realtime: REALTIME, cache: { enabled: true, store: 'redis', ttl_s: 120 } };
    const gws: TestGateway[] = [];
    try {
      gws.push(await startScenarioGateway(kit, scenario), await startScenarioGateway(kit, scenario));
      const [a, b] = gws.map((gw) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 }));
      const request = ask('fleet');
      const first = await a!.chat.completions.create(request).withResponse();
      expect(first.response.headers.get('x-gateway-cache')).to.equal('miss');
      expect(await countKeys(SHARED_REDIS, `${prefix}cache:`)).to.equal(1);
      const second = await b!.chat.completions.create(request).withResponse();
      expect(second.response.headers.get('x-gateway-cache'), 'the other instance hits').to.equal('hit');
      expect(second.data.choices[0]!.message.content).to.equal(first.data.choices[0]!.message.content);
      expect(kit.openai.requests).to.have.length(1);
      const { Redis } = await import('ioredis');
      const client = new Redis(SHARED_REDIS);
      try {
        const [key] = await client.keys(`${prefix}cache:*`);
        const ttl = await client.ttl(key!);
        expect(ttl).to.be.within(100, 120);
      } finally {
        client.disconnect();
      }
    } finally {
      for (const gw of gws) await gw.close();
      await deletePrefix(SHARED_REDIS, prefix);
    }
  });

  it('a Redis that dies turns hits into misses, never a failed call (even with store.on_error: closed for the cache)', async () => {
    const redis: RedisChild = await startRedisChild();
    const gw = await startScenarioGateway(kit, { store: { url: redis.url, on_error: 'closed' }, realtime: REALTIME, cache: { enabled: true, store: 'redis' } });
    try {
      const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
      const request = ask('outage');
      await openai.chat.completions.create(request);
      expect((await openai.chat.completions.create(request).withResponse()).response.headers.get('x-gateway-cache')).to.equal('hit');
      await redis.stop();
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        const during = await openai.chat.completions.create(request).withResponse();
        expect(during.response.status).to.equal(200);
        expect(during.response.headers.get('x-gateway-cache')).to.equal('miss');
        expect(Date.now() - started, 'no stall longer than the store guard allows').to.be.below(1500);
      }
      const stream = await openai.chat.completions.create({ ...request, stream: true });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).to.equal('The capital of France is Paris.');
      expect(kit.openai.requests).to.have.length(5);
    } finally {
      await gw.close();
      await redis.stop();
    }
  });
});
