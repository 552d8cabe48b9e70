import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import OpenAI from 'openai';
import { parse } from 'yaml';
import type { TestGateway } from '../../helpers/gateway.js';
import { startKitUpstreams, startScenarioGateway, type KitUpstreams, type Scenario } from '../../kit/routing-gateway.js';

// Issue 27: a model with one upstream and no fallbacks, under the shipped routing defaults, must
// not turn itself off for a cooldown after a short blip of upstream errors.
const MODEL = 'openai/gpt-4.1-mini';
const shipped = readFileSync('gateway.yaml', 'utf8');
/** The shipped default of a `${NAME:-default}` placeholder in gateway.yaml. */
const shippedDefault = (name: string) => new RegExp(`\\$\\{${name}:-(\\d+)\\}`).exec(shipped)![1]!;
// test/helpers/gateway.ts turns retries and breakers down for other suites: back to the shipped values.
const SHIPPED_ENV = {
  GATEWAY_RETRY_ATTEMPTS: shippedDefault('GATEWAY_RETRY_ATTEMPTS'),
  GATEWAY_BREAKER_FAILURES: shippedDefault('GATEWAY_BREAKER_FAILURES'),
  GATEWAY_METRICS_PUBLIC: 'true',
};
/** gateway.yaml's own routing block (placeholders and all), with `breaker` keys laid over it. */
function shippedRouting(breaker: Record<string, unknown> = {}): Record<string, unknown> {
  const routing = (parse(shipped) as { routing: Record<string, Record<string, unknown>> }).routing;
  return { ...routing, breaker: { ...routing.breaker, ...breaker } };
}

async function ask(client: OpenAI): Promise<{ ok: true; model: string } | { ok: false; status: number; code: unknown; retryAfter: string | null }> {
  try {
    const r = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    return { ok: true, model: r.model };
  } catch (e) {
    const err = e as InstanceType<typeof OpenAI.APIError>;
    if (!(err instanceof OpenAI.APIError)) throw e;
    return { ok: false, status: err.status ?? 0, code: err.code, retryAfter: err.headers?.get('retry-after') ?? null };
  }
}

async function forcedCalls(gw: TestGateway): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('gateway_breaker_forced_total{') && l.includes(`model="${MODEL}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** Six upstream failures (two client calls, each retried) then recovery: the next three calls answer at once. */
function neverOff(title: string, scenario: () => Scenario) {
  describe(title, function () {
    this.timeout(30_000);
    let kit: KitUpstreams;
    let gw: TestGateway;
    before(async () => {
      kit = await startKitUpstreams();
      gw = await startScenarioGateway(kit, scenario(), SHIPPED_ENV);
    });
    after(async () => {
      await gw?.close();
      await kit?.close();
    });

    it('answers the upstream\'s own failures, then serves the next three calls at once when the upstream recovers', async () => {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
      kit.openai.enqueue({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { status: 500 });
      const first = await ask(client);
      const second = await ask(client);
      expect(first, 'three 503s: the last one, as the upstream gave it').to.deep.include({ ok: false, status: 503, code: 'upstream_overloaded' });
      expect(second, 'the breaker opened on its 2nd try; the 3rd went through it and got a 500').to.deep.include({ ok: false, status: 502, code: 'upstream_error' });
      expect(kit.openai.requests, 'retries used as configured, never more').to.have.length(6);

      const started = Date.now();
      const after = [await ask(client), await ask(client), await ask(client)];
      expect(after).to.deep.equal([{ ok: true, model: MODEL }, { ok: true, model: MODEL }, { ok: true, model: MODEL }]);
      expect(Date.now() - started, 'no cooldown waited for').to.be.below(5000);
      expect(kit.openai.requests).to.have.length(9);
      expect(await forcedCalls(gw), 'the 2nd call\'s last try and the first call after recovery went through the open breaker').to.equal(2);
    });
  });
}

describe('e2e/routing: the breaker steers, it never turns a model off (issue 27, shipped routing defaults)', () => {
  neverOff('memory breaker, one upstream, no fallbacks', () => ({ routing: undefined }));

  const prefix = `gw-test-never-off-${randomBytes(4).toString('hex')}:`;
  neverOff('Redis-shared breaker, one upstream, no fallbacks', () => ({
    routing: undefined,
    store: { url: `redis://127.0.0.1:6379?prefix=${prefix}`, on_error: 'open' },
    realtime: { secret: 'never-off-test-realtime-secret' },
  }));
  after(async () => {
    const redis = new Redis('redis://127.0.0.1:6379');
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  describe('when_all_open: refuse', function () {
    this.timeout(30_000);
    let kit: KitUpstreams;
    let gw: TestGateway;
    before(async () => {
      kit = await startKitUpstreams();
      gw = await startScenarioGateway(kit, { routing: shippedRouting({ when_all_open: 'refuse' }) }, SHIPPED_ENV);
    });
    after(async () => {
      await gw?.close();
      await kit?.close();
    });

    it('answers 503 upstream_circuit_open with Retry-After the seconds until the cooldown ends', async () => {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
      kit.openai.enqueue({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
      expect(await ask(client)).to.deep.include({ ok: false, status: 503, code: 'upstream_overloaded' });
      const openedAt = Date.now();
      expect(await ask(client), 'an upstream already failed for this call: its failure, not the breaker\'s').to.deep.include({ ok: false, status: 503, code: 'upstream_overloaded' });
      expect(kit.openai.requests).to.have.length(5);

      const refused = await ask(client);
      expect(refused).to.deep.include({ ok: false, status: 503, code: 'upstream_circuit_open' });
      const cooldownS = Number((parse(shipped) as { routing: { breaker: { cooldown_s: number } } }).routing.breaker.cooldown_s);
      const left = cooldownS - (Date.now() - openedAt) / 1000;
      const retryAfter = Number((refused as { retryAfter: string }).retryAfter);
      expect(retryAfter, 'whole seconds until the cooldown ends, not a fixed figure').to.be.within(Math.floor(left), Math.ceil(left) + 1);
      expect(kit.openai.requests, 'refused without an upstream call').to.have.length(5);
      expect(await forcedCalls(gw)).to.equal(0);
    });
  });
});
