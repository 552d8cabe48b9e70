import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import OpenAI from 'openai';
import { TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { startKitUpstreams, startScenarioGateway, type KitUpstreams } from '../../kit/routing-gateway.js';

const CHAT = 'openai/gpt-4.1-mini';
const CLAUDE = 'anthropic/claude-haiku-5-5';
const EMBED = 'openai/text-embedding-3-small';
const OTHER_KEY = 'cache-other-key-0123456789';
const BUDGET_KEY = `sk-cache-budget-${randomBytes(6).toString('hex')}`;
const TPM_KEY = `sk-cache-tpm-${randomBytes(6).toString('hex')}`;
const CONTROL_KEY = `sk-cache-control-${randomBytes(6).toString('hex')}`;
const RPM_KEY = `sk-cache-rpm-${randomBytes(6).toString('hex')}`;
const ADMIN_KEY = `sk-cache-admin-${randomBytes(6).toString('hex')}`;
const sha = (k: string) => createHash('sha256').update(k).digest('hex');

/** A question no other test asks (entries live as long as the gateway). */
function question(label: string): string {
  return `${label} ${randomBytes(4).toString('hex')}: what is the capital of France?`;
}

async function post(gw: TestGateway, path: string, body: unknown, headers: Record<string, string> = {}, key = gw.key): Promise<{ status: number; headers: Headers; text: string; json: Record<string, unknown> }> {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try { json = JSON.parse(text) as Record<string, unknown>; } catch { /* a stream */ }
  return { status: res.status, headers: res.headers, text, json };
}

/** The data lines of an SSE body. */
function dataLines(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6));
}

describe('e2e/cache: the response cache (official SDKs, AI SDK, fake-upstream kit)', function () {
  this.timeout(30_000);
  let kit: KitUpstreams;
  let gw: TestGateway;
  let openai: OpenAI;

  before(async () => {
    kit = await startKitUpstreams();
    gw = await startScenarioGateway(kit, {
      cache: { enabled: true },
      keys: [
        { name: 'budgeted', sha256: sha(BUDGET_KEY), budget: { usd: 0.0002, period: 'total' } },
        { name: 'control', sha256: sha(CONTROL_KEY), budget: { usd: 0.0002, period: 'total' } },
        { name: 'tokens', sha256: sha(TPM_KEY), tpm: 60 },
        { name: 'rpm', sha256: sha(RPM_KEY), rpm: 2, budget: { usd: 1, period: 'day' } },
      ],
    }, { GATEWAY_API_KEYS: `${TEST_KEY},${OTHER_KEY}`, GATEWAY_ADMIN_KEYS: ADMIN_KEY });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await kit?.close();
  });
  beforeEach(() => kit.reset());
  afterEach(() => expect(kit.violations(), 'requests a provider would have refused').to.deep.equal([]));

  it('answers a repeated chat call from the cache: no upstream call, cost 0, original usage, age', async () => {
    const ask = { model: CHAT, messages: [{ role: 'user' as const, content: question('repeat') }] };
    const first = await openai.chat.completions.create(ask).withResponse();
    expect(first.response.headers.get('x-gateway-cache')).to.equal('miss');
    expect(Number(first.response.headers.get('x-gateway-cost'))).to.be.greaterThan(0);
    const second = await openai.chat.completions.create(ask).withResponse();
    expect(second.response.headers.get('x-gateway-cache')).to.equal('hit');
    expect(kit.openai.requests, 'the second call never reached the upstream').to.have.length(1);
    expect(second.data.choices[0]!.message.content).to.equal(first.data.choices[0]!.message.content);
    expect(second.data.usage!.prompt_tokens).to.equal(first.data.usage!.prompt_tokens);
    expect(second.data.usage!.completion_tokens).to.equal(first.data.usage!.completion_tokens);
    expect((second.data.usage as unknown as { cost: number }).cost).to.equal(0);
    expect(second.response.headers.get('x-gateway-cost')).to.equal('0');
    expect(second.response.headers.get('age')).to.match(/^\d+$/);
    expect(second.response.headers.get('x-gateway-model')).to.equal(CHAT);
  });

  it('replays an answer asked plain as a valid stream (usage chunk when asked, [DONE] last)', async () => {
    const messages = [{ role: 'user' as const, content: question('plain-then-stream') }];
    const plain = await openai.chat.completions.create({ model: CHAT, messages });
    const stream = await openai.chat.completions.create({ model: CHAT, messages, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(kit.openai.requests).to.have.length(1);
    expect(text).to.equal(plain.choices[0]!.message.content);
    expect(finish).to.equal('stop');
    expect(usage?.prompt_tokens).to.equal(plain.usage!.prompt_tokens);
    expect((usage as unknown as { cost: number }).cost).to.equal(0);
    // The raw stream: well-formed events, the cost comment, [DONE] as the last data line.
    const raw = await post(gw, '/v1/chat/completions', { model: CHAT, messages, stream: true });
    expect(raw.headers.get('x-gateway-cache')).to.equal('hit');
    expect(raw.headers.get('content-type')).to.match(/^text\/event-stream/);
    const lines = dataLines(raw.text);
    expect(lines.at(-1)).to.equal('[DONE]');
    for (const l of lines.slice(0, -1)) expect(() => JSON.parse(l)).not.to.throw();
    expect(lines.some((l) => l.includes('"usage":{')), 'no usage chunk unless include_usage').to.equal(false);
    expect(kit.openai.requests).to.have.length(1);
  });

  it('stores a streamed answer and answers it plain (translated and same-format streams)', async () => {
    for (const model of [CHAT, CLAUDE]) {
      const messages = [{ role: 'user' as const, content: question(`stream-then-plain ${model}`) }];
      let streamed = '';
      for await (const chunk of await openai.chat.completions.create({ model, messages, stream: true })) streamed += chunk.choices[0]?.delta.content ?? '';
      const plain = await openai.chat.completions.create({ model, messages }).withResponse();
      expect(plain.response.headers.get('x-gateway-cache'), model).to.equal('hit');
      expect(plain.data.choices[0]!.message.content).to.equal(streamed);
      expect(plain.data.usage!.completion_tokens).to.be.greaterThan(0);
    }
    expect(kit.openai.requests).to.have.length(1);
    expect(kit.anthropic.requests).to.have.length(1);
  });

  it('misses on a different temperature, and keeps two keys apart (scope: key)', async () => {
    const messages = [{ role: 'user' as const, content: question('params') }];
    await openai.chat.completions.create({ model: CHAT, messages, temperature: 0.2 });
    const other = await openai.chat.completions.create({ model: CHAT, messages, temperature: 0.7 }).withResponse();
    expect(other.response.headers.get('x-gateway-cache')).to.equal('miss');
    const otherKey = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: OTHER_KEY, maxRetries: 0 });
    const cross = await otherKey.chat.completions.create({ model: CHAT, messages, temperature: 0.2 }).withResponse();
    expect(cross.response.headers.get('x-gateway-cache')).to.equal('miss');
    expect(kit.openai.requests).to.have.length(3);
    // The user field and metadata do not change the answer: same entry.
    const same = await openai.chat.completions.create({ model: CHAT, messages, temperature: 0.2, user: 'someone-else' }).withResponse();
    expect(same.response.headers.get('x-gateway-cache')).to.equal('hit');
  });

  it('Cache-Control: no-store neither reads nor writes; no-cache skips the lookup and refreshes', async () => {
    const body = { model: CHAT, messages: [{ role: 'user', content: question('directives') }] };
    const a = await post(gw, '/v1/chat/completions', body, { 'cache-control': 'no-store' });
    expect(a.headers.get('x-gateway-cache')).to.equal('bypass');
    const b = await post(gw, '/v1/chat/completions', body);
    expect(b.headers.get('x-gateway-cache'), 'no-store wrote nothing').to.equal('miss');
    const c = await post(gw, '/v1/chat/completions', body, { 'cache-control': 'no-store' });
    expect(c.headers.get('x-gateway-cache'), 'no-store read nothing').to.equal('bypass');
    expect(kit.openai.requests).to.have.length(3);
    const d = await post(gw, '/v1/chat/completions', body, { 'cache-control': 'no-cache' });
    expect(d.headers.get('x-gateway-cache')).to.equal('store');
    expect(kit.openai.requests).to.have.length(4);
    const e = await post(gw, '/v1/chat/completions', body);
    expect(e.headers.get('x-gateway-cache')).to.equal('hit');
    expect(Number(e.headers.get('age'))).to.be.at.most(1);
    expect(kit.openai.requests).to.have.length(4);
  });

  it('x-gateway-cache-ttl shortens the entry lifetime; a bad value is 400 invalid_cache_ttl', async () => {
    const body = { model: CHAT, messages: [{ role: 'user', content: question('ttl') }] };
    const bad = await post(gw, '/v1/chat/completions', body, { 'x-gateway-cache-ttl': 'soon' });
    expect(bad.status).to.equal(400);
    expect((bad.json.error as { code: string }).code).to.equal('invalid_cache_ttl');
    await post(gw, '/v1/chat/completions', body, { 'x-gateway-cache-ttl': '1' });
    expect((await post(gw, '/v1/chat/completions', body)).headers.get('x-gateway-cache')).to.equal('hit');
    await new Promise((r) => setTimeout(r, 1100));
    expect((await post(gw, '/v1/chat/completions', body)).headers.get('x-gateway-cache'), 'expired').to.equal('miss');
  });

  it('never stores an error, a cut stream or a content-filtered answer', async () => {
    const body = { model: CHAT, messages: [{ role: 'user', content: question('failures') }] };
    kit.openai.enqueue({ status: 400, message: 'bad request upstream' });
    expect((await post(gw, '/v1/chat/completions', body)).status).to.equal(400);
    kit.openai.enqueue({ cutAfterEvents: 3, eventDelayMs: 30 });
    const cut = await post(gw, '/v1/chat/completions', { ...body, stream: true });
    expect(cut.status).to.equal(200);
    expect(cut.text).to.match(/"error"/);
    expect(dataLines(cut.text)).not.to.include('[DONE]');
    kit.openai.enqueue({ endAfterEvents: 3, eventDelayMs: 30 });
    const ended = await post(gw, '/v1/chat/completions', { ...body, stream: true });
    expect(ended.text).to.include('upstream_stream_truncated');
    expect(dataLines(ended.text)).not.to.include('[DONE]');
    kit.openai.enqueue({ transformData: (d) => ({ ...d, choices: [{ index: 0, message: { role: 'assistant', content: '' }, finish_reason: 'content_filter' }] }) });
    const filtered = await post(gw, '/v1/chat/completions', body);
    expect(filtered.status).to.equal(200);
    const fresh = await post(gw, '/v1/chat/completions', body);
    expect(fresh.headers.get('x-gateway-cache'), 'nothing above was stored').to.equal('miss');
    expect(kit.openai.requests.length + kit.openai2.requests.length).to.equal(5);
    expect((await post(gw, '/v1/chat/completions', body)).headers.get('x-gateway-cache')).to.equal('hit');
  });

  it('caches embeddings', async () => {
    const input = question('embed');
    const first = await openai.embeddings.create({ model: EMBED, input }).withResponse();
    const second = await openai.embeddings.create({ model: EMBED, input }).withResponse();
    expect(first.response.headers.get('x-gateway-cache')).to.equal('miss');
    expect(second.response.headers.get('x-gateway-cache')).to.equal('hit');
    expect(second.response.headers.get('x-gateway-cost')).to.equal('0');
    expect(second.data.data[0]!.embedding).to.deep.equal(first.data.data[0]!.embedding);
    expect(kit.openai.requests.filter((r) => r.path.endsWith('/embeddings'))).to.have.length(1);
  });

  it('caches rerank, and Responses calls only with store: false', async () => {
    const rerank = { model: 'sandbox/rerank-1', query: question('rerank'), documents: ['Paris is in France.', 'Berlin is in Germany.'] };
    const a = await post(gw, '/v1/rerank', rerank);
    const b = await post(gw, '/v1/rerank', rerank);
    expect([a.status, b.status]).to.deep.equal([200, 200]);
    expect([a.headers.get('x-gateway-cache'), b.headers.get('x-gateway-cache')]).to.deep.equal(['miss', 'hit']);
    expect(b.json.results).to.deep.equal(a.json.results);

    const input = question('responses');
    const stored = await openai.responses.create({ model: CHAT, input }).withResponse();
    expect(stored.response.headers.get('x-gateway-cache'), 'a stored response is state').to.equal('bypass');
    const first = await openai.responses.create({ model: CHAT, input, store: false }).withResponse();
    const second = await openai.responses.create({ model: CHAT, input, store: false }).withResponse();
    expect(first.response.headers.get('x-gateway-cache')).to.equal('miss');
    expect(second.response.headers.get('x-gateway-cache')).to.equal('hit');
    expect(second.data.output_text).to.equal(first.data.output_text);
    const events: string[] = [];
    for await (const e of await openai.responses.create({ model: CHAT, input, store: false, stream: true })) events.push(e.type);
    expect(events[0]).to.equal('response.created');
    expect(events.at(-1)).to.equal('response.completed');
    expect(kit.openai.requests).to.have.length(2);
  });

  it('answers the messages surface from the cache, plain and streamed (Anthropic SDK)', async () => {
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
    const ask = { model: CLAUDE, max_tokens: 200, messages: [{ role: 'user' as const, content: question('messages') }] };
    const first = await anthropic.messages.create(ask);
    const stream = anthropic.messages.stream(ask);
    const final = await stream.finalMessage();
    expect(kit.anthropic.requests).to.have.length(1);
    expect(final.content).to.deep.equal(first.content);
    expect(final.usage.output_tokens).to.equal(first.usage.output_tokens);
    expect(final.stop_reason).to.equal(first.stop_reason);
  });

  it('hits through the Vercel AI SDK', async () => {
    const model = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key }).chat(CHAT);
    const prompt = question('ai-sdk');
    const a = await generateText({ model, prompt, temperature: 0 });
    const b = await generateText({ model, prompt, temperature: 0 });
    expect(b.text).to.equal(a.text);
    expect(b.response.headers?.['x-gateway-cache']).to.equal('hit');
    expect(kit.openai.requests).to.have.length(1);
  });

  it('hits cost nothing: budgets and token limits are untouched, rpm still counts', async () => {
    // Two keys with the same budget: one makes a call and then 30 hits, the other only the call;
    // both can then make exactly as many new calls before the budget refuses.
    const callsUntilRefused = async (key: string, label: string) => {
      for (let i = 0; i < 40; i++) {
        const r = await post(gw, '/v1/chat/completions', { model: CHAT, messages: [{ role: 'user', content: `${label} call number ${i}` }] }, {}, key);
        if (r.status === 402) return i;
        expect(r.status, r.text).to.equal(200);
      }
      throw new Error('the budget never refused');
    };
    const messages = [{ role: 'user', content: 'budget question' }];
    expect((await post(gw, '/v1/chat/completions', { model: CHAT, messages }, {}, BUDGET_KEY)).status).to.equal(200);
    for (let i = 0; i < 30; i++) {
      const hit = await post(gw, '/v1/chat/completions', { model: CHAT, messages }, {}, BUDGET_KEY);
      expect(hit.status, hit.text).to.equal(200);
      expect(hit.headers.get('x-gateway-cache')).to.equal('hit');
    }
    expect((await post(gw, '/v1/chat/completions', { model: CHAT, messages }, {}, CONTROL_KEY)).status).to.equal(200);
    const withHits = await callsUntilRefused(BUDGET_KEY, 'a');
    const without = await callsUntilRefused(CONTROL_KEY, 'b');
    expect(without).to.be.greaterThan(0);
    expect(withHits, 'the hits spent nothing').to.equal(without);
    // A hit is served even once the budget is used up (it costs nothing).
    expect((await post(gw, '/v1/chat/completions', { model: CHAT, messages }, {}, BUDGET_KEY)).headers.get('x-gateway-cache')).to.equal('hit');

    const tokens = [{ role: 'user', content: 'tokens question' }];
    expect((await post(gw, '/v1/chat/completions', { model: CHAT, messages: tokens }, {}, TPM_KEY)).status).to.equal(200);
    for (let i = 0; i < 8; i++) {
      const hit = await post(gw, '/v1/chat/completions', { model: CHAT, messages: tokens }, {}, TPM_KEY);
      expect(hit.status, 'tpm is not counted by hits').to.equal(200);
    }
    // rpm still counts hits.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post(gw, '/v1/chat/completions', { model: CHAT, messages }, {}, RPM_KEY)).status);
    expect(statuses).to.deep.equal([200, 200, 429, 429]);
  });

  it('counts hits and savings in /metrics', async () => {
    const res = await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
    expect(res.status).to.equal(200);
    const text = await res.text();
    expect(text).to.match(/gateway_cache_requests_total\{result="hit"\} [1-9]/);
    expect(text).to.match(/gateway_cache_requests_total\{result="miss"\} [1-9]/);
    expect(text).to.match(/gateway_cache_saved_usd_total 0\.0*[1-9]/);
  });
});

describe('e2e/cache: cache switched per model, router model and key', function () {
  this.timeout(30_000);
  const NO_CACHE_KEY = `sk-cache-off-${randomBytes(6).toString('hex')}`;
  const CACHED_KEY = `sk-cache-on-${randomBytes(6).toString('hex')}`;
  let kit: KitUpstreams;
  let gw: TestGateway;

  before(async () => {
    kit = await startKitUpstreams();
    gw = await startScenarioGateway(kit, {
      // Off at the top level; on for one router model (its own ttl) and for one key.
      extraModels: [{ id: 'gateway/cached', name: 'Cached', route: { strategy: 'fallback', targets: [CHAT] }, cache: { enabled: true, ttl_s: 30 } }],
      keys: [
        { name: 'no-cache', sha256: sha(NO_CACHE_KEY), cache: { enabled: false } },
        { name: 'cached', sha256: sha(CACHED_KEY), cache: { enabled: true } },
      ],
    });
  });
  after(async () => {
    await gw?.close();
    await kit?.close();
  });
  beforeEach(() => kit.reset());

  it('caches only where a model or key switches it on; a key can switch it off', async () => {
    const plain = { model: CHAT, messages: [{ role: 'user', content: question('off') }] };
    const a = await post(gw, '/v1/chat/completions', plain);
    expect(a.headers.get('x-gateway-cache'), 'off: no header').to.equal(null);
    expect((await post(gw, '/v1/chat/completions', plain)).headers.get('x-gateway-cache')).to.equal(null);
    expect(kit.openai.requests).to.have.length(2);

    const routed = { model: 'gateway/cached', messages: [{ role: 'user', content: question('router') }] };
    expect((await post(gw, '/v1/chat/completions', routed)).headers.get('x-gateway-cache')).to.equal('miss');
    const hit = await post(gw, '/v1/chat/completions', routed);
    expect(hit.headers.get('x-gateway-cache')).to.equal('hit');
    expect(hit.headers.get('x-gateway-model')).to.equal(CHAT);
    expect((await post(gw, '/v1/chat/completions', routed, {}, NO_CACHE_KEY)).headers.get('x-gateway-cache'), 'the key switches it off').to.equal(null);

    const byKey = { model: CHAT, messages: [{ role: 'user', content: question('by key') }] };
    await post(gw, '/v1/chat/completions', byKey, {}, CACHED_KEY);
    expect((await post(gw, '/v1/chat/completions', byKey, {}, CACHED_KEY)).headers.get('x-gateway-cache')).to.equal('hit');
    expect(kit.openai.requests).to.have.length(5);
  });
});
