import { randomBytes } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import { Redis } from 'ioredis';
import type { TestGateway } from '../../helpers/gateway.js';
import { startKitUpstreams, startScenarioGateway, TEST_ROUTING, type KitUpstreams } from '../../kit/routing-gateway.js';

const CHAT = 'openai/gpt-4.1-mini';
const CLAUDE = 'anthropic/claude-haiku-5-5';

describe('e2e/routing: circuit breakers shared by two instances on one Redis', function () {
  this.timeout(30_000);
  const prefix = `gw-test-breaker-${randomBytes(4).toString('hex')}:`;
  let kit: KitUpstreams;
  let a: TestGateway;
  let b: TestGateway;

  before(async () => {
    kit = await startKitUpstreams();
    const scenario = {
      store: { url: `redis://127.0.0.1:6379?prefix=${prefix}`, on_error: 'open' },
      realtime: { secret: 'breaker-test-realtime-secret' },
      routing: { ...TEST_ROUTING, retry: { ...TEST_ROUTING.retry, attempts: 1 }, breaker: { failures: 3, window_s: 30, cooldown_s: 1 } },
      models: { [CLAUDE]: { fallbacks: [CHAT] } },
    };
    a = await startScenarioGateway(kit, scenario);
    b = await startScenarioGateway(kit, scenario);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await kit?.close();
    const redis = new Redis('redis://127.0.0.1:6379');
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('opens on the second instance after failures seen by the first, then closes after a good probe', async () => {
    const clientA = new OpenAI({ baseURL: `${a.url}/v1`, apiKey: a.key, maxRetries: 0 });
    const clientB = new OpenAI({ baseURL: `${b.url}/v1`, apiKey: b.key, maxRetries: 0 });
    const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };
    kit.anthropic.failRandomly(1, { status: 503 });
    for (let i = 0; i < 3; i++) {
      const { response } = await clientA.chat.completions.create({ model: CLAUDE, ...ask }).withResponse();
      expect(response.headers.get('x-gateway-fallback-reason')).to.equal('503');
    }
    expect(kit.anthropic.requests).to.have.length(3);

    // Instance B never called Anthropic, yet skips it: the breaker lives in Redis.
    const { data, response } = await clientB.chat.completions.create({ model: CLAUDE, ...ask }).withResponse();
    expect(data.model).to.equal(CHAT);
    expect(response.headers.get('x-gateway-fallback-reason')).to.equal('breaker_open');
    expect(response.headers.get('x-gateway-attempts')).to.equal('1');
    expect(kit.anthropic.requests, 'no call reached the open upstream').to.have.length(3);

    // Without a fallback (the request's own `models` list names none) the breaker does not turn
    // the model off (issue 27): the call goes through the open breaker and gets Anthropic's own
    // answer (here its 503, an overloaded error), never upstream_circuit_open.
    const anthropic = new Anthropic({ baseURL: b.url, apiKey: b.key, maxRetries: 0 });
    const err = await anthropic.messages.create({ model: CLAUDE, max_tokens: 10, models: [CLAUDE], messages: [{ role: 'user', content: 'hi' }] } as Anthropic.MessageCreateParamsNonStreaming)
      .then(() => undefined, (e: unknown) => e as InstanceType<typeof Anthropic.APIError>);
    expect(err).to.be.instanceOf(Anthropic.APIError);
    expect((err!.error as { error?: { type?: string } }).error?.type).to.equal('overloaded_error');
    expect(JSON.stringify(err!.error)).not.to.include('upstream_circuit_open');
    expect(kit.anthropic.requests, 'the forced call reached Anthropic').to.have.length(4);

    // After the cooldown one probe goes through; its success closes the breaker for both.
    kit.anthropic.reset();
    await new Promise((r) => setTimeout(r, 1100));
    const probe = await clientB.chat.completions.create({ model: CLAUDE, ...ask }).withResponse();
    expect(probe.data.model).to.equal(CLAUDE);
    const after = await clientA.chat.completions.create({ model: CLAUDE, ...ask }).withResponse();
    expect(after.data.model).to.equal(CLAUDE);
    expect(after.response.headers.get('x-gateway-fallback-reason')).to.equal(null);
    expect(kit.anthropic.requests).to.have.length(2);
  });
});
