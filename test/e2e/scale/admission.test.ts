import { expect } from 'chai';
import { Redis } from 'ioredis';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startRedisChild, type RedisChild } from '../../store/support/redis.js';
import { awayFromMinuteEdge, errorCode, post } from '../budget/support/client.js';
import { newKey, writeProject, type TestKey } from '../budget/support/project.js';

/** Script calls (EVALSHA/EVAL: the gateway's only Redis commands on the request path) so far. */
async function scriptCalls(redis: Redis): Promise<number> {
  const stats = String(await redis.info('commandstats'));
  let n = 0;
  for (const m of stats.matchAll(/^cmdstat_(evalsha|eval):calls=(\d+)/gm)) n += Number(m[2]);
  return n;
}

describe('e2e/scale: admission and settlement round trips (own redis-server)', function () {
  this.timeout(30_000);
  // Five images fit the budget; rpm 7 would let 7 through.
  const key: TestKey = { key: newKey('adm'), name: 'adm', rpm: 7, budget: { usd: 0.05, period: 'total' } };
  const chatKey: TestKey = { key: newKey('adm-chat'), name: 'adm-chat', rpm: 1000, budget: { usd: 100, period: 'day' } };
  const tight: TestKey = { key: newKey('adm-tight'), name: 'adm-tight', rpm: 3, budget: { usd: 100, period: 'day' } };
  let redis: RedisChild;
  let probe: Redis;
  let gw: TestGateway;

  before(async () => {
    redis = await startRedisChild();
    probe = new Redis(redis.url);
    gw = await startGateway({ configPath: writeProject({ keys: [key, chatKey, tight], store: { url: `${redis.url}?prefix=adm:`, on_error: 'closed' } }) });
  });
  after(async () => {
    await gw?.close();
    probe?.disconnect();
    await redis?.stop();
  });

  it('admits a budgeted call with one round trip and settles it with one', async () => {
    const chat = { model: 'sandbox/echo-1', max_tokens: 20, messages: [{ role: 'user', content: 'hello' }] };
    expect((await post(`${gw.url}/v1/chat/completions`, chatKey.key, chat)).status).to.equal(200); // scripts loaded
    await new Promise((r) => setTimeout(r, 200)); // the settlement of that call is written
    const before = await scriptCalls(probe);
    for (let i = 0; i < 10; i++) {
      const res = await post(`${gw.url}/v1/chat/completions`, chatKey.key, { ...chat, stream: i % 2 === 1 });
      expect(res.status).to.equal(200);
      if (i % 2 === 0) expect(res.headers.get('x-ratelimit-limit-requests')).to.equal('1000');
    }
    await new Promise((r) => setTimeout(r, 200));
    // 10 calls: 10 admissions (rpm + budget in one script) + 10 settlements; heartbeats aside.
    const calls = (await scriptCalls(probe)) - before;
    expect(calls).to.be.within(20, 21);
  });

  it('holds rpm in the same step, and a 402 does not count against it', async () => {
    await awayFromMinuteEdge();
    const image = () => post(`${gw.url}/v1/images/generations`, key.key, { model: 'sandbox/image-1', prompt: 'a cat' });
    const first = await Promise.all(Array.from({ length: 8 }, image));
    expect(first.map((r) => r.status).sort()).to.deep.equal([200, 200, 200, 200, 200, 402, 402, 402]);
    // Only the 5 served count on rpm 7: had the 402s counted (8), these would be 429s.
    const more = [await image(), await image(), await image()];
    expect(more.map((r) => r.status)).to.deep.equal([402, 402, 402]);
    expect(more.map((r) => errorCode(r.json))).to.deep.equal(['budget_exhausted', 'budget_exhausted', 'budget_exhausted']);
  });

  it('refuses over rpm with 429 from the admission script, headers and Retry-After included', async () => {
    await awayFromMinuteEdge();
    const results = await Promise.all(Array.from({ length: 5 }, () => post(`${gw.url}/v1/embeddings`, tight.key, { model: 'sandbox/embed-1', input: 'hi' })));
    expect(results.map((r) => r.status).sort()).to.deep.equal([200, 200, 200, 429, 429]);
    const refused = results.find((r) => r.status === 429)!;
    expect(errorCode(refused.json)).to.equal('rate_limit_exceeded');
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect(results.filter((r) => r.status === 200).map((r) => r.headers.get('x-ratelimit-remaining-requests')).sort()).to.deep.equal(['0', '1', '2']);
  });
});
