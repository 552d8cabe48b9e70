import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import type { TestGateway } from '../../helpers/gateway.js';
import { LIMITED_KEY, startKitUpstreams, startScenarioGateway, type KitUpstreams } from '../../kit/routing-gateway.js';

const CHAT = 'openai/gpt-4.1-mini';
const CLAUDE = 'anthropic/claude-haiku-5-5';
const REASONING = 'openai/gpt-6.1-terra';
const HEDGED = 'anthropic/claude-sonnet-5-5';
const SHORT = 'anthropic/claude-opus-5-5';
const ASTRA = 'openai/gpt-6.2-astra';
const GEMINI = 'google/gemini-3.8-flash';
const RESPONSES_MODEL = 'openai-responses/gpt-6.2-sol';

// Two OpenAI deployments: the primary takes (almost) every first try, so a retry is seen
// going to the second; Claude falls back to an OpenAI-format model; a router model spreads
// over both formats.
const SCENARIO = {
  providers: {
    openai: {
      upstreams: [
        { name: 'primary', weight: 1000 },
        { name: 'second', api_key_env: 'OPENAI_API_KEY_2', base_url_env: 'OPENAI_BASE_URL_2', weight: 0.001 },
      ],
    },
    anthropic: { routing: { timeouts: { first_byte_ms: 400, idle_ms: 400 } } },
  },
  models: { [CLAUDE]: { fallbacks: [CHAT] }, [HEDGED]: { fallbacks: [CHAT], hedge_after_ms: 250 }, [SHORT]: { routing: { timeouts: { total_ms: 1800 } } } },
  extraModels: [
    { id: 'gateway/fast', name: 'Fast', route: { strategy: 'fallback', targets: [CLAUDE, { model: CHAT, weight: 2 }] } },
    { id: 'gateway/cheap', name: 'Cheap', route: { strategy: 'cheapest', targets: [CHAT, CLAUDE] } },
  ],
};

describe('e2e/routing: retries, fallbacks and deadlines of text calls (official SDKs, fake-upstream kit)', function () {
  this.timeout(30_000);
  let kit: KitUpstreams;
  let gw: TestGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => {
    kit = await startKitUpstreams();
    gw = await startScenarioGateway(kit, SCENARIO);
    // The SDKs retry by themselves: off, so what is measured is the gateway's retrying.
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await kit?.close();
  });
  beforeEach(() => kit.reset());
  afterEach(() => expect(kit.violations(), 'requests a provider would have refused').to.deep.equal([]));

  const ask = { messages: [{ role: 'user' as const, content: 'What is the capital of France?' }] };

  describe('retries', () => {
    it('retries a 429 on the other deployment, honouring Retry-After, and says so in headers', async () => {
      kit.openai.enqueue({ status: 429, retryAfter: '0' });
      const { data, response } = await openai.chat.completions.create({ model: CHAT, ...ask }).withResponse();
      expect(data.choices[0]!.message.content).to.equal('The capital of France is Paris.');
      expect(data.model).to.equal(CHAT);
      expect(response.headers.get('x-gateway-attempts')).to.equal('2');
      expect(response.headers.get('x-gateway-fallback-reason')).to.equal('429');
      expect(response.headers.get('x-gateway-model')).to.equal(CHAT);
      expect(kit.openai.requests).to.have.length(1);
      expect(kit.openai2.requests, 'the retry went to the second deployment').to.have.length(1);
      // Gateway-only fields never reach the provider; the request id does.
      expect(kit.openai2.requests[0]!.headers['x-request-id']).to.equal(response.headers.get('x-request-id'));
    });

    it('retries 500, 503, a reset connection and a retry-after-ms, up to retry.attempts', async () => {
      kit.openai.enqueue({ status: 500 }, { reset: true });
      kit.openai2.enqueue({ status: 503, retryAfterMs: '10' });
      const err = await openai.chat.completions.create({ model: CHAT, ...ask }).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
      expect(err, 'three failed tries and no fallback: the last failure is answered').to.be.instanceOf(OpenAI.APIError);
      expect(err!.status).to.equal(502);
      expect(kit.openai.requests.length + kit.openai2.requests.length).to.equal(3);

      kit.reset();
      kit.openai.enqueue({ reset: true });
      const ok = await openai.chat.completions.create({ model: CHAT, ...ask }).withResponse();
      expect(ok.response.headers.get('x-gateway-fallback-reason')).to.equal('reset');
      expect(ok.response.headers.get('x-gateway-attempts')).to.equal('2');
    });

    for (const status of [400, 401, 403, 404, 422]) {
      it(`never retries a ${status}`, async () => {
        kit.openai.enqueue({ status });
        const err = await openai.chat.completions.create({ model: CHAT, ...ask }).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
        expect(err).to.be.instanceOf(OpenAI.APIError);
        expect(kit.openai.requests.length + kit.openai2.requests.length).to.equal(1);
      });
    }

    it('retries an Anthropic 529 overloaded for a messages client (plain and streamed)', async () => {
      kit.anthropic.enqueue({ status: 529 });
      const { data, response } = await anthropic.messages.create({ model: CLAUDE, max_tokens: 100, ...ask }).withResponse();
      expect(data.content[0]).to.include({ type: 'text' });
      expect(data.model).to.equal(CLAUDE);
      expect(response.headers.get('x-gateway-fallback-reason')).to.equal('529');
      expect(kit.anthropic.requests).to.have.length(2);

      kit.reset();
      kit.anthropic.enqueue({ status: 529 });
      const stream = anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, ...ask });
      const final = await stream.finalMessage();
      expect(final.content.map((c) => (c.type === 'text' ? c.text : '')).join('')).to.have.length.greaterThan(0);
      expect(kit.anthropic.requests).to.have.length(2);
    });

    it('treats no headers within first_byte_ms as a retryable timeout', async () => {
      kit.anthropic.enqueue({ hang: true });
      const { response } = await anthropic.messages.create({ model: CLAUDE, max_tokens: 100, ...ask }).withResponse();
      expect(response.headers.get('x-gateway-fallback-reason')).to.equal('timeout');
      expect(kit.anthropic.requests).to.have.length(2);
    });

    it('retries a stream that fails or stalls before its first byte, in every text surface', async () => {
      kit.openai.enqueue({ status: 503 });
      const chunks: string[] = [];
      const stream = await openai.chat.completions.create({ model: CHAT, ...ask, stream: true });
      for await (const c of stream) chunks.push(c.choices[0]?.delta?.content ?? '');
      expect(chunks.join('')).to.equal('The capital of France is Paris.');

      kit.reset();
      kit.anthropic.enqueue({ stallAfterEvents: 0 });
      const text = await anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, ...ask }).finalText();
      expect(text).to.have.length.greaterThan(0);
      expect(kit.anthropic.requests).to.have.length(2);

      kit.reset();
      kit.openai.enqueue({ firstByteDelayMs: 2000 });
      const events: string[] = [];
      const responses = await openai.responses.create({ model: CHAT, input: 'hi', stream: true });
      for await (const e of responses) events.push(e.type);
      expect(events.at(-1)).to.equal('response.completed');
    });

    it('never retries after the first byte: a cut stream ends with an error event, billed for what was delivered', async () => {
      kit.openai.enqueue({ cutAfterEvents: 3, eventDelayMs: 30 });
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: CHAT, ...ask, stream: true }),
      });
      const text = await res.text();
      expect(res.status).to.equal(200);
      expect(text).to.match(/"error"/);
      expect(text).not.to.match(/\[DONE\]/);
      expect(text).to.match(/^: x-gateway-cost: [0-9.]+$/m);
      expect(text, 'every frame names the canonical model').not.to.match(/gpt-4\.1-mini-2025/);
      expect(text).to.include(`"model":"${CHAT}"`);
      expect(kit.openai.requests.length + kit.openai2.requests.length).to.equal(1);

      kit.reset();
      kit.anthropic.enqueue({ cutAfterEvents: 3, eventDelayMs: 30 });
      const failure = await anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, ...ask }).finalMessage().then(() => undefined, (e: unknown) => e as Error);
      expect(failure, 'the Anthropic SDK sees an error event').to.be.instanceOf(Error);
      expect(kit.anthropic.requests).to.have.length(1);
    });
  });

  describe('every dialect', () => {
    it('retries a Gemini 503 for a chat client (plain and streamed)', async () => {
      kit.gemini.enqueue({ status: 503 });
      const { data, response } = await openai.chat.completions.create({ model: GEMINI, ...ask }).withResponse();
      expect(data.model).to.equal(GEMINI);
      expect(response.headers.get('x-gateway-fallback-reason')).to.equal('503');
      kit.gemini.enqueue({ reset: true });
      const chunks: string[] = [];
      for await (const c of await openai.chat.completions.create({ model: GEMINI, ...ask, stream: true })) chunks.push(c.choices[0]?.delta?.content ?? '');
      expect(chunks.join('')).to.have.length.greaterThan(0);
      expect(kit.gemini.requests).to.have.length(4);
    });

    it('retries an OpenAI Responses upstream for a messages client (plain and streamed)', async () => {
      kit.openai.enqueue({ status: 500 });
      const { data, response } = await anthropic.messages.create({ model: RESPONSES_MODEL, max_tokens: 100, ...ask }).withResponse();
      expect(data.model).to.equal(RESPONSES_MODEL);
      expect(response.headers.get('x-gateway-attempts')).to.equal('2');
      kit.openai.enqueue({ status: 429, retryAfterMs: '5' });
      const text = await anthropic.messages.stream({ model: RESPONSES_MODEL, max_tokens: 100, ...ask }).finalText();
      expect(text).to.have.length.greaterThan(0);
      expect(kit.openai.requests.map((r) => r.dialect)).to.deep.equal(['openai-responses', 'openai-responses', 'openai-responses', 'openai-responses']);
    });

    it('retries a translated responses call to a chat upstream', async () => {
      kit.openai.enqueue({ status: 502 });
      const { data, response } = await openai.responses.create({ model: CHAT, input: 'hi' }).withResponse();
      expect(data.status).to.equal('completed');
      expect(data.model).to.equal(CHAT);
      expect(response.headers.get('x-gateway-fallback-reason')).to.equal('502');
    });
  });

  describe('after the first byte', () => {
    it('ends a stream whose chunks stall past idle_ms with an error event in the client\'s format, billed', async () => {
      kit.anthropic.enqueue({ stallAfterEvents: 2 });
      const res = await fetch(`${gw.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': gw.key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model: CLAUDE, max_tokens: 100, stream: true, ...ask }),
      });
      const text = await res.text();
      expect(res.status).to.equal(200);
      expect(text).to.match(/^event: message_start$/m);
      expect(text).to.match(/^event: error$/m);
      expect(text).to.match(/timeout/);
      expect(text).not.to.match(/^event: message_stop$/m);
      expect(text).to.match(/^: x-gateway-cost: [0-9.]+$/m);
      expect(kit.anthropic.requests, 'never retried after the first byte').to.have.length(1);
    });

    it('ends a translated stream cut mid-way with the surface\'s error event (chat client, Anthropic upstream)', async () => {
      kit.anthropic.enqueue({ cutAfterEvents: 3, eventDelayMs: 30 });
      const chunks: string[] = [];
      const failure = await (async () => {
        for await (const c of await openai.chat.completions.create({ model: CLAUDE, ...ask, stream: true })) chunks.push(c.choices[0]?.delta?.content ?? '');
      })().then(() => undefined, (e: unknown) => e as Error);
      expect(failure, 'the SDK throws the error event').to.be.instanceOf(Error);
      expect(kit.anthropic.requests).to.have.length(1);
    });
  });

  describe('fallbacks', () => {
    it('falls back from an Anthropic-format model to an OpenAI-format one for a messages client, naming the model that answered', async () => {
      kit.anthropic.enqueue({ status: 529 }, { status: 529 }, { status: 529 });
      const { data, response } = await anthropic.messages.create({ model: CLAUDE, max_tokens: 100, ...ask }).withResponse();
      expect(data.model).to.equal(CHAT);
      expect(data.content[0]).to.deep.include({ type: 'text', text: 'The capital of France is Paris.' });
      expect(response.headers.get('x-gateway-model')).to.equal(CHAT);
      expect(response.headers.get('x-gateway-attempts')).to.equal('4');
      expect(response.headers.get('x-gateway-fallback-reason')).to.equal('529');
      expect(kit.openai.requests[0]!.dialect).to.equal('openai-chat');
    });

    it('moves to the fallback at once when Retry-After is longer than retry_after_max_s (streamed)', async () => {
      kit.anthropic.enqueue({ status: 429, retryAfter: '60' });
      const stream = anthropic.messages.stream({ model: CLAUDE, max_tokens: 100, ...ask });
      const final = await stream.finalMessage();
      expect(final.model).to.equal(CHAT);
      expect(kit.anthropic.requests).to.have.length(1);
    });

    it('drops thinking signatures a fallback in another format cannot verify', async () => {
      kit.anthropic.enqueue({ status: 503 }, { status: 503 }, { status: 503 });
      const { data } = await anthropic.messages.create({
        model: CLAUDE,
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'Think, then answer.' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'Paris it is.', signature: 'sig-from-anthropic' }, { type: 'text', text: 'Paris.' }] },
          { role: 'user', content: 'And of Italy?' },
        ],
      }).withResponse();
      expect(data.model).to.equal(CHAT);
      const sent = JSON.stringify(kit.openai.requests[0]!.body);
      expect(sent).not.to.include('sig-from-anthropic');
      expect(sent).to.include('Paris.');
    });

    it('takes the request\'s own `models` list over the YAML fallbacks, and never forwards it', async () => {
      kit.openai.enqueue({ status: 503 }, { status: 503 }, { status: 503 });
      kit.openai2.enqueue({ status: 503 }, { status: 503 });
      const { data, response } = await openai.chat.completions.create({ model: CHAT, models: [CLAUDE], ...ask } as OpenAI.ChatCompletionCreateParamsNonStreaming).withResponse();
      expect(data.model).to.equal(CLAUDE);
      expect(response.headers.get('x-gateway-fallback-reason')).to.equal('503');
      for (const r of [...kit.openai.requests, ...kit.openai2.requests, ...kit.anthropic.requests]) expect(r.body).not.to.have.property('models');
    });

    it('refuses an unknown `models` entry with 400 and one outside the key\'s allowlist with 403, before any upstream call', async () => {
      const unknown = await openai.chat.completions.create({ model: CHAT, models: ['openai/nope'], ...ask } as OpenAI.ChatCompletionCreateParamsNonStreaming).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
      expect(unknown!.status).to.equal(400);
      const limited = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: LIMITED_KEY, maxRetries: 0 });
      const forbidden = await limited.chat.completions.create({ model: CHAT, models: [CLAUDE], ...ask } as OpenAI.ChatCompletionCreateParamsNonStreaming).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
      expect(forbidden!.status).to.equal(403);
      const direct = await limited.chat.completions.create({ model: CLAUDE, ...ask }).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
      expect((forbidden!.error as { code?: string }).code).to.equal((direct!.error as { code?: string }).code);
      const malformed = await openai.chat.completions.create({ model: CHAT, models: CLAUDE, ...ask } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
      expect(malformed!.status, '`models` must be a list').to.equal(400);
      expect(kit.all.flatMap((u) => u.requests)).to.have.length(0);
    });

    it('serves a router model listed in discovery, answering through its targets in order', async () => {
      const card = await openai.models.retrieve('gateway/fast');
      expect(card.id).to.equal('gateway/fast');
      kit.anthropic.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
      const { data, response } = await openai.chat.completions.create({ model: 'gateway/fast', ...ask }).withResponse();
      expect(data.model).to.equal(CHAT);
      expect(response.headers.get('x-gateway-model')).to.equal(CHAT);
      expect(kit.anthropic.requests).to.have.length(3);
    });

    it('tries a cheapest router\'s targets by this request\'s estimated price, the cheaper first whatever the list order', async () => {
      // Claude Haiku costs less than GPT-4.1 mini per prompt and per output token (catalog pricing).
      kit.anthropic.enqueue({ status: 500 }, { status: 500 }, { status: 500 });
      const { data, response } = await openai.chat.completions.create({ model: 'gateway/cheap', max_tokens: 50, ...ask }).withResponse();
      expect(kit.anthropic.requests, 'the cheaper target, listed second, was tried first').to.have.length(3);
      expect(data.model).to.equal(CHAT);
      expect(response.headers.get('x-gateway-model')).to.equal(CHAT);
      expect(response.headers.get('x-gateway-fallback-reason')).to.equal('500');
      expect(kit.openai.requests.length + kit.openai2.requests.length).to.equal(1);
    });
  });

  describe('deadlines and budgets', () => {
    it('answers 504 once the total deadline passes, retries included', async () => {
      kit.anthropic.enqueue({ hang: true }, { hang: true }, { hang: true });
      const err = await anthropic.messages.create({ model: SHORT, max_tokens: 100, ...ask }).then(() => undefined, (e: unknown) => e as InstanceType<typeof Anthropic.APIError>);
      expect(err).to.be.instanceOf(Anthropic.APIError);
      expect(err!.status).to.equal(504);
      expect(err!.message).to.match(/total deadline/);
      // The first-byte deadline (400 ms) let retries start before the total one (1.8 s) ended them all.
      expect(kit.anthropic.requests.length).to.be.within(2, 3);
    });

    it('skips a fallback target that cannot fit max_budget_usd at its own price (reason budget)', async () => {
      const { data, response } = await openai.chat.completions.create({ model: ASTRA, models: [CLAUDE], max_budget_usd: 0.0001, ...ask } as OpenAI.ChatCompletionCreateParamsNonStreaming).withResponse();
      expect(data.model).to.equal(CLAUDE);
      expect(response.headers.get('x-gateway-fallback-reason')).to.equal('budget');
      expect(response.headers.get('x-gateway-attempts')).to.equal('1');
      expect(kit.openai.requests).to.have.length(0);
      const err = await openai.chat.completions.create({ model: ASTRA, max_budget_usd: 0.0001, ...ask } as OpenAI.ChatCompletionCreateParamsNonStreaming).then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
      expect(err!.status).to.equal(400);
      expect((err!.error as { code?: string }).code).to.equal('budget_exceeded');
    });

    it('says a fallback was skipped for budget even when the primary\'s own failure is the answer', async () => {
      kit.openai.enqueue({ status: 503 }, { status: 503 }, { status: 503 });
      kit.openai2.enqueue({ status: 503 }, { status: 503 }, { status: 503 });
      const err = await openai.chat.completions.create({ model: CHAT, models: [ASTRA], max_budget_usd: 0.0001, ...ask } as OpenAI.ChatCompletionCreateParamsNonStreaming)
        .then(() => undefined, (e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
      expect(err).to.be.instanceOf(OpenAI.APIError);
      expect([err!.status, (err!.error as { code?: string }).code], 'the primary\'s own failure').to.deep.equal([503, 'upstream_overloaded']);
      expect(err!.headers?.get('x-gateway-fallback-reason')).to.equal('budget');
      expect(err!.message).to.include(`'${ASTRA}'`).and.to.include('max_budget_usd 0.0001 USD');
      expect(kit.openai.requests.length + kit.openai2.requests.length, 'the primary\'s three tries, none for the skipped fallback').to.equal(3);
    });

    it('falls back from an OpenAI model to Gemini for a responses client (streamed)', async () => {
      kit.openai.enqueue({ status: 503 }, { status: 503 });
      kit.openai2.enqueue({ status: 503 });
      const events: Array<{ type: string; response?: { model?: string } }> = [];
      const stream = await openai.responses.create({ model: CHAT, models: [GEMINI], input: 'hi', stream: true } as OpenAI.Responses.ResponseCreateParamsStreaming);
      for await (const e of stream) events.push(e as (typeof events)[number]);
      expect(events.at(-1)!.type).to.equal('response.completed');
      expect(events.at(-1)!.response!.model).to.equal(GEMINI);
      expect(kit.gemini.requests).to.have.length(1);
    });
  });

  describe('hedging', () => {
    it('sends a second attempt to the next target when the first sent no byte by hedge_after_ms; the first answer wins', async () => {
      kit.anthropic.enqueue({ firstByteDelayMs: 1200 });
      const { data, response } = await anthropic.messages.create({ model: HEDGED, max_tokens: 100, ...ask }).withResponse();
      expect(data.model).to.equal(CHAT);
      expect(response.headers.get('x-gateway-fallback-reason')).to.equal('hedge');
      expect(response.headers.get('x-gateway-attempts')).to.equal('2');
      expect(kit.anthropic.requests).to.have.length(1);
      expect(kit.openai.requests).to.have.length(1);
    });

    it('keeps the first target when it answers before the hedge fires (streamed)', async () => {
      const final = await anthropic.messages.stream({ model: HEDGED, max_tokens: 100, ...ask }).finalMessage();
      expect(final.model).to.equal(HEDGED);
      expect(kit.openai.requests).to.have.length(0);
    });
  });

  describe('same-format passthrough', () => {
    it('sends max_completion_tokens to a reasoning model flagged in the catalog', async () => {
      await openai.chat.completions.create({ model: REASONING, max_tokens: 64, ...ask });
      const body = kit.openai.requests[0]!.body;
      expect(body).to.include({ max_completion_tokens: 64 });
      expect(body).not.to.have.property('max_tokens');
    });

    it('answers under the canonical model id with id, integer created and a marked usage estimate when the upstream sent none', async () => {
      kit.openai.enqueue({ omitUsage: true });
      const data = await openai.chat.completions.create({ model: CHAT, ...ask });
      expect(data.model).to.equal(CHAT);
      expect(data.id).to.be.a('string').and.not.equal('');
      expect(Number.isInteger(data.created)).to.equal(true);
      expect(data.usage!.prompt_tokens).to.be.greaterThan(0);
      expect((data.usage as unknown as { estimated?: boolean }).estimated).to.equal(true);
    });
  });
});
