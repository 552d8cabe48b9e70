import { expect } from 'chai';
import { WebSocket } from 'ws';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { awayFromMinuteEdge, errorCode, post } from './support/client.js';
import { newKey, writeProject, type TestKey } from './support/project.js';

describe('e2e/budget: API keys with model globs, rpm, tpm and budgets (memory store)', () => {
  const embedOnly: TestKey = { key: newKey('embed'), name: 'embed-only', models: ['sandbox/embed-*', 'sandbox/rerank-?'] };
  const echoOnly: TestKey = { key: newKey('echo'), name: 'echo-only', models: ['sandbox/echo-*'] };
  const rpm: TestKey = { key: newKey('rpm'), name: 'rpm-3', rpm: 3 };
  const tpm: TestKey = { key: newKey('tpm'), name: 'tpm-60', tpm: 60 };
  const budget: TestKey = { key: newKey('budget'), name: 'five-images', budget: { usd: 0.05, period: 'day' } };
  const small: TestKey = { key: newKey('small'), name: 'small', budget: { usd: 0.0012, period: 'total' } };
  const realtime: TestKey = { key: newKey('rt'), name: 'rt', budget: { usd: 0.05, period: 'month' } };
  let gw: TestGateway;

  before(async () => {
    gw = await startGateway({ configPath: writeProject({ keys: [embedOnly, echoOnly, rpm, tpm, budget, small, realtime] }) });
  });
  after(() => gw.close());

  it('accepts a declared key and refuses a model outside its globs with 403 model_not_allowed', async () => {
    expect((await post(`${gw.url}/v1/embeddings`, embedOnly.key, { model: 'sandbox/embed-1', input: 'hi' })).status).to.equal(200);
    expect((await post(`${gw.url}/v1/rerank`, embedOnly.key, { model: 'sandbox/rerank-1', query: 'q', documents: ['d'] })).status).to.equal(200);
    const r = await post(`${gw.url}/v1/chat/completions`, embedOnly.key, { model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'hi' }] });
    expect(r.status).to.equal(403);
    expect(errorCode(r.json)).to.equal('model_not_allowed');
    const m = await post(`${gw.url}/v1/messages`, embedOnly.key, { model: 'sandbox/echo-1', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(m.status).to.equal(403);
    expect(m.json.type).to.equal('error');
  });

  it('lists only the models a restricted key may call, matching a capability by any spelling', async () => {
    const res = await fetch(`${gw.url}/v1/models?supported_parameters=functions`, { headers: { authorization: `Bearer ${echoOnly.key}` } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('vary')).to.equal('Authorization, x-api-key');
    const ids = ((await res.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
    expect(ids, 'functions spells tools, which sandbox/echo-1 lists').to.include('sandbox/echo-1');
    expect(ids.every((id) => id.startsWith('sandbox/echo-')), ids.join(',')).to.equal(true);
  });

  it('answers 429 with an integer Retry-After once requests per minute are used up', async () => {
    await awayFromMinuteEdge();
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof post>> | undefined;
    for (let i = 0; i < 5; i++) {
      last = await post(`${gw.url}/v1/embeddings`, rpm.key, { model: 'sandbox/embed-1', input: 'hi' });
      statuses.push(last.status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 429, 429]);
    expect(errorCode(last!.json)).to.equal('rate_limit_exceeded');
    expect(Number(last!.headers.get('retry-after'))).to.be.within(1, 60);
    expect(last!.headers.get('retry-after')).to.match(/^\d+$/);
  });

  it('answers 429 once tokens per minute are used up', async () => {
    await awayFromMinuteEdge();
    const body = { model: 'sandbox/echo-1', max_tokens: 5, messages: [{ role: 'user', content: 'one two three four five six seven eight nine ten' }] };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await post(`${gw.url}/v1/chat/completions`, tpm.key, body)).status);
    expect(statuses[0]).to.equal(200);
    expect(statuses).to.include(429);
    expect(statuses.indexOf(429)).to.be.greaterThan(0);
  });

  it('admits exactly the 5 of 20 concurrent requests a budget fits, then 402 budget_exhausted', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => post(`${gw.url}/v1/images/generations`, budget.key, { model: 'sandbox/image-1', prompt: 'a cat' })));
    expect(results.filter((r) => r.status === 200)).to.have.length(5);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused).to.have.length(15);
    for (const r of refused) {
      expect(r.status).to.equal(402);
      expect(errorCode(r.json)).to.equal('budget_exhausted');
      expect(Number(r.headers.get('retry-after'))).to.be.greaterThan(0);
    }
    const after = await post(`${gw.url}/v1/images/generations`, budget.key, { model: 'sandbox/image-1', prompt: 'a cat' });
    expect(after.status).to.equal(402);
    expect((after.json.error as { details: { used_usd: number; budget_usd: number } }).details).to.include({ used_usd: 0.05, budget_usd: 0.05 });
  });

  it('fits the output to what is left of the key budget instead of refusing', async () => {
    const long = `Repeat: ${'alpha beta gamma delta '.repeat(40)}`;
    const first = await post(`${gw.url}/v1/chat/completions`, small.key, { model: 'sandbox/echo-1', messages: [{ role: 'user', content: long }] });
    expect(first.status, first.text).to.equal(200);
    const choice = (first.json.choices as Array<{ finish_reason: string }>)[0]!;
    expect(choice.finish_reason).to.equal('length');
    const cost = (first.json.usage as { cost: number }).cost;
    expect(cost).to.be.at.most(0.0012);
    const next = await post(`${gw.url}/v1/chat/completions`, small.key, { model: 'sandbox/echo-1', messages: [{ role: 'user', content: long }] });
    expect(next.status).to.equal(402);
    expect(next.headers.get('retry-after')).to.equal(null); // a total budget never resets
  });

  it('closes a realtime session at once with 1008 when the key budget cannot cover it', async () => {
    const r = await post(`${gw.url}/v1/realtime/sessions`, realtime.key, { model: 'sandbox/realtime-1', max_duration_seconds: 60, max_budget_usd: 1 });
    expect(r.status).to.equal(200);
    const ws = new WebSocket(String(r.json.url));
    const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      ws.on('error', reject);
    });
    expect(closed).to.deep.equal({ code: 1008, reason: 'budget_exhausted' });
  });
});
