import { expect } from 'chai';
import OpenAI from 'openai';
import type { KitUpstream } from '../kit/fake-upstream.js';
import { parseSamples, samplesOf, valueOf, type Sample } from './prometheus-text.js';
import { ACME_MODEL, ADMIN_KEY, AFTER_FIRST_WORD, CLIENT_KEY, startAcmeUpstream, startObserved, YAML_ADMIN_KEY, type ObservedGateway } from './support.js';

async function scrape(gw: ObservedGateway, key = ADMIN_KEY): Promise<Sample[]> {
  const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).to.equal(200);
  return parseSamples(await res.text());
}

describe('observability: GET /metrics', () => {
  let fake: KitUpstream;
  before(async () => { fake = await startAcmeUpstream(); });
  after(() => fake.close());
  afterEach(() => {
    expect(fake.violations, 'requests the provider would have refused').to.deep.equal([]);
  });

  describe('access', () => {
    let gw: ObservedGateway;
    before(async () => { gw = await startObserved({ fake }); });
    after(() => gw.close());

    it('answers 401 in the default envelope without a key', async () => {
      const res = await fetch(`${gw.url}/metrics`);
      expect(res.status).to.equal(401);
      const body = (await res.json()) as { error: { type: string; code: string } };
      expect(body.error).to.include({ type: 'authentication_error', code: 'missing_api_key' });
    });

    it('answers 401 for a key that is neither an admin nor a client key', async () => {
      const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: 'Bearer nope-not-a-key' } });
      expect(res.status).to.equal(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('invalid_api_key');
    });

    it('answers 403 admin_key_required for a valid client key', async () => {
      const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${CLIENT_KEY}` } });
      expect(res.status).to.equal(403);
      const body = (await res.json()) as { error: { type: string; code: string } };
      expect(body.error).to.include({ type: 'permission_error', code: 'admin_key_required' });
    });

    it('serves Prometheus text to an admin key from auth.admin_keys_env or auth.admin_keys (x-api-key too)', async () => {
      const a = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      expect(a.status).to.equal(200);
      expect(a.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      expect(await a.text()).to.match(/^# HELP gateway_requests_total /m);
      const b = await fetch(`${gw.url}/metrics`, { headers: { 'x-api-key': YAML_ADMIN_KEY } });
      expect(b.status).to.equal(200);
    });

    it('does not let an admin key call model routes (admin keys are not client keys)', async () => {
      const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: ACME_MODEL, messages: [{ role: 'user', content: 'hi' }] }) });
      expect(res.status).to.equal(401);
    });
  });

  describe('observability.metrics.public: true', () => {
    let gw: ObservedGateway;
    before(async () => { gw = await startObserved({ observability: { metrics: { public: true } } }); });
    after(() => gw.close());

    it('serves /metrics without a key', async () => {
      const res = await fetch(`${gw.url}/metrics`);
      expect(res.status).to.equal(200);
      expect(await res.text()).to.include('# TYPE gateway_requests_total counter');
    });

    it('asks for an admin key again once a reload turns it off', async () => {
      gw.gateway.reload(gw.compileWith({ observability: { metrics: { public: false } } }));
      expect((await fetch(`${gw.url}/metrics`)).status).to.equal(401);
      expect((await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).to.equal(200);
    });
  });

  describe('request metrics', () => {
    let gw: ObservedGateway;
    let client: OpenAI;
    before(async () => {
      gw = await startObserved({ fake });
      client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    });
    after(() => gw.close());

    it('counts a chat completion by route, operation, model, provider, status and key, with tokens and cost', async () => {
      const answer = await client.chat.completions.create({ model: ACME_MODEL, messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.usage?.prompt_tokens).to.equal(11);
      const s = await scrape(gw);
      const where = { route: 'chat-completions', operation: 'chat.completions', model: ACME_MODEL, provider: 'acme', status: '200', key: 'env-1' };
      expect(valueOf(s, 'gateway_requests_total', where)).to.equal(1);
      expect(valueOf(s, 'gateway_request_duration_seconds_count', { route: 'chat-completions', status: '200' })).to.equal(1);
      const genAi = { gen_ai_operation_name: 'chat', gen_ai_provider_name: 'acme', gen_ai_request_model: ACME_MODEL, gen_ai_response_model: ACME_MODEL };
      expect(valueOf(s, 'gen_ai_client_operation_duration_seconds_count', { ...genAi, error_type: '' })).to.equal(1);
      expect(valueOf(s, 'gen_ai_client_token_usage_sum', { ...genAi, gen_ai_token_type: 'input' })).to.equal(11);
      expect(valueOf(s, 'gen_ai_client_token_usage_sum', { ...genAi, gen_ai_token_type: 'output' })).to.equal(6);
      expect(valueOf(s, 'gen_ai_client_token_usage_count', { ...genAi, gen_ai_token_type: 'output' })).to.equal(1);
      // 11 input tokens at $0.000001 and 6 output tokens at $0.000002.
      expect(valueOf(s, 'gateway_cost_usd_total', { model: ACME_MODEL, provider: 'acme', key: 'env-1' })).to.be.closeTo(0.000023, 1e-12);
      expect(valueOf(s, 'gen_ai_server_time_to_first_token_seconds_count', genAi), 'not a stream').to.equal(0);
    });

    it('observes time to first token for a stream and shows it in flight while it runs', async () => {
      let release!: () => void;
      const held = new Promise<void>((r) => { release = r; });
      let firstSeen!: () => void;
      const first = new Promise<void>((r) => { firstSeen = r; });
      fake.enqueue({ holdAfterEvents: AFTER_FIRST_WORD, holdUntil: () => { firstSeen(); return held; } });
      const stream = await client.chat.completions.create({ model: ACME_MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }, { headers: { 'x-request-id': 'obs-metrics-stream-1' } });
      const iterator = stream[Symbol.asyncIterator]();
      await iterator.next();
      await first;
      const during = await scrape(gw);
      expect(valueOf(during, 'gateway_streams_in_flight')).to.equal(1);
      // The stream and the scrape itself.
      expect(valueOf(during, 'gateway_requests_in_flight')).to.equal(2);
      release();
      while (!(await iterator.next()).done);
      // Metrics are counted when the response has finished, as the access line is written.
      await gw.requestLine('obs-metrics-stream-1');
      const after = await scrape(gw);
      expect(valueOf(after, 'gateway_streams_in_flight')).to.equal(0);
      expect(valueOf(after, 'gateway_requests_in_flight')).to.equal(1);
      const genAi = { gen_ai_operation_name: 'chat', gen_ai_provider_name: 'acme', gen_ai_request_model: ACME_MODEL };
      expect(valueOf(after, 'gen_ai_server_time_to_first_token_seconds_count', genAi)).to.equal(1);
      expect(valueOf(after, 'gen_ai_client_token_usage_sum', { ...genAi, gen_ai_token_type: 'input' })).to.equal(22);
    });

    it('counts refusals and unknown paths with the status the client got', async () => {
      await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${CLIENT_KEY}`, 'content-type': 'application/json' }, body: '{"model":' });
      await fetch(`${gw.url}/no/such/path`);
      const s = await scrape(gw);
      expect(valueOf(s, 'gateway_requests_total', { route: 'chat-completions', status: '400', key: 'env-1', model: '' })).to.equal(1);
      expect(valueOf(s, 'gateway_requests_total', { route: '', status: '404' })).to.equal(1);
      expect(samplesOf(s, 'gateway_requests_total', { route: 'metrics', status: '200', key: 'env-1' })).to.have.length(0);
      expect(valueOf(s, 'gateway_requests_total', { route: 'metrics', status: '200', key: 'admin-env-1' })).to.be.greaterThan(0);
    });

    it('collects the process and Node.js default metrics', async () => {
      const s = await scrape(gw);
      expect(samplesOf(s, 'process_cpu_seconds_total')).to.have.length(1);
      expect(samplesOf(s, 'nodejs_eventloop_lag_seconds')).to.have.length(1);
    });
  });

  describe('observability.metrics.key_label: false', () => {
    let gw: ObservedGateway;
    before(async () => { gw = await startObserved({ fake, observability: { metrics: { key_label: false } } }); });
    after(() => gw.close());

    it('drops the key label from request and cost metrics', async () => {
      const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
      await client.chat.completions.create({ model: ACME_MODEL, messages: [{ role: 'user', content: 'hi' }] });
      const s = await scrape(gw);
      const requests = samplesOf(s, 'gateway_requests_total', { model: ACME_MODEL });
      expect(requests).to.have.length(1);
      expect(requests[0]!.labels).not.to.have.property('key');
      expect(samplesOf(s, 'gateway_cost_usd_total')[0]!.labels).to.deep.equal({ model: ACME_MODEL, provider: 'acme' });
    });
  });
});
