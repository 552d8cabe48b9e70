import { expect } from 'chai';
import OpenAI from 'openai';
import { freePort } from '../../helpers/free-port.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { readFixture, splitEvents, startKitUpstream, type KitRequest, type KitUpstream } from '../../kit/fake-upstream.js';
import { findChatModel, writeConfigCopy, type CatalogModel, type ConfigCopy } from './config-copy.js';

const GATEWAY_KEY = 'gw-e2e-key-0123456789';
const OPENAI_KEY = 'sk-upstream';
const ACME_KEY = 'sk-acme-upstream';

/** The kit's recorded chat stream (what the fake upstreams answer) and the words it carries. */
const EVENTS = splitEvents(readFixture('openai-chat', 'text.sse'));
const ANSWER_WORDS = EVENTS.map((e) => contentOf(e)).filter((w) => w.length > 0);
const ANSWER = ANSWER_WORDS.join('');
const TOTAL_TOKENS = (JSON.parse(readFixture('openai-chat', 'text.json')) as { usage: { total_tokens: number } }).usage.total_tokens;
/** Holding the stream here sends the role chunk and the first content chunk only. */
const AFTER_FIRST_WORD = EVENTS.findIndex((e) => contentOf(e).length > 0) + 1;

/** An OpenAI-compatible provider declared in YAML alone (no code names it), served under a path prefix. */
const ACME_MODEL = { id: 'acme/fast-chat', upstream: 'acme-fast-2026-01' };
function acmeConfig(acme: KitUpstream): Parameters<typeof writeConfigCopy>[0] {
  return {
    providers: { acme: { type: 'openai-chat', display_name: 'Acme (e2e)', base_url: `${acme.url}/acme/v1`, api_key_env: 'ACME_API_KEY' } },
    models: [{
      id: ACME_MODEL.id,
      provider: 'acme',
      upstream: ACME_MODEL.upstream,
      name: 'Acme Fast Chat',
      created: 1767225600,
      context_length: 32768,
      endpoints: ['/v1/chat/completions'],
      parameters: ['temperature', 'max_tokens', 'max_completion_tokens', 'stream', 'stream_options', 'max_budget_usd'],
      pricing: { prompt: '0.000001', completion: '0.000002' },
    }],
  };
}

/** Rejects after `ms` with a message, so a buffered stream fails the test instead of hanging it. */
function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([promise, new Promise<T>((_, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms); })])
    .finally(() => clearTimeout(timer));
}

/** Reads an SSE body until `until` matches the text so far. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, state: { text: string }, until: (text: string) => boolean): Promise<void> {
  const decoder = new TextDecoder();
  while (!until(state.text)) {
    const { value, done } = await reader.read();
    if (done) return;
    state.text += decoder.decode(value, { stream: true });
  }
}

/** Content deltas of a chat SSE text. */
function contentOf(sse: string): string {
  return sse.split('\n').filter((l) => l.startsWith('data: {')).map((l) => (JSON.parse(l.slice(6)) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content ?? '').join('');
}

describe('e2e chat completions through a fake OpenAI-compatible upstream', () => {
  let fake: KitUpstream;
  let acme: KitUpstream;
  let copy: ConfigCopy;
  let model: CatalogModel;
  let gw: TestGateway;
  let client: OpenAI;
  const env = (fakeOrigin: string, extra: Record<string, string> = {}) => ({
    GATEWAY_API_KEYS: GATEWAY_KEY,
    OPENAI_API_KEY: OPENAI_KEY,
    OPENAI_BASE_URL: `${fakeOrigin}/v1`,
    ACME_API_KEY: ACME_KEY,
    ...extra,
  });
  const chat = (body: Record<string, unknown>, signal?: AbortSignal) =>
    fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
  const last = (): KitRequest => fake.last();

  before(async () => {
    fake = await startKitUpstream('openai', OPENAI_KEY, { dialects: ['openai-chat'] });
    acme = await startKitUpstream('acme', ACME_KEY, { dialects: ['openai-chat'], basePath: '/acme' });
    model = findChatModel('openai');
    copy = writeConfigCopy(acmeConfig(acme));
    gw = await startGateway({ configPath: copy.path, env: env(fake.url) });
    client = new OpenAI({ apiKey: GATEWAY_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await gw.close();
    await fake.close();
    await acme.close();
    copy.remove();
  });
  afterEach(() => {
    // Every request the gateway sent must be one OpenAI accepts (CreateChatCompletionRequest, its key, its path).
    expect([...fake.violations, ...acme.violations], 'requests OpenAI would have refused').to.deep.equal([]);
    fake.reset();
    acme.reset();
  });

  describe('plain requests', () => {
    it('sends the upstream model name and the provider key, never the gateway key', async () => {
      const completion = await client.chat.completions.create({ model: model.id, messages: [{ role: 'user', content: 'Hi there' }] });
      expect(completion.choices[0]!.message.content).to.equal(ANSWER);
      expect(completion.usage!.total_tokens).to.equal(TOTAL_TOKENS);
      expect(fake.requests).to.have.length(1);
      const seen = last();
      expect(seen.method).to.equal('POST');
      expect(seen.path).to.equal('/v1/chat/completions');
      expect(seen.body.model).to.equal(model.upstream);
      expect(seen.body.messages).to.deep.equal([{ role: 'user', content: 'Hi there' }]);
      expect(seen.headers.authorization).to.equal(`Bearer ${OPENAI_KEY}`);
      expect(JSON.stringify(seen.headers)).to.not.include(GATEWAY_KEY);
      expect(seen.headers['x-api-key']).to.equal(undefined);
    });

    it('does not forward max_budget_usd (a gateway-only field)', async () => {
      const res = await chat({ model: model.id, messages: [{ role: 'user', content: 'budgeted' }], max_budget_usd: 0.25 });
      expect(res.status).to.equal(200);
      expect(last().body).to.not.have.property('max_budget_usd');
      expect(last().body.model).to.equal(model.upstream);
    });

    it('serves a provider declared in YAML alone: its base URL, key variable and upstream model name', async () => {
      const card = await fetch(`${gw.url}/v1/models/${ACME_MODEL.id}`);
      expect(card.status).to.equal(200);
      expect(((await card.json()) as { supported_endpoints: string[] }).supported_endpoints).to.deep.equal(['/v1/chat/completions']);

      const res = await chat({ model: ACME_MODEL.id, messages: [{ role: 'user', content: 'Hello acme' }], max_budget_usd: 1, logit_bias: { 50256: -100 } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('x-gateway-provider')).to.equal('acme');
      expect(res.headers.get('x-gateway-dropped-params')?.split(',')).to.include('logit_bias');
      const body = await res.json() as { choices: Array<{ message: { content: string } }> };
      expect(body.choices[0]!.message.content).to.equal(ANSWER);
      expect(fake.requests, 'nothing reached the OpenAI deployment').to.have.length(0);
      const seen = acme.last();
      expect(seen.path).to.equal('/acme/v1/chat/completions');
      expect(seen.body.model).to.equal(ACME_MODEL.upstream);
      expect(seen.headers.authorization).to.equal(`Bearer ${ACME_KEY}`);
      expect(seen.body).to.not.have.property('max_budget_usd');
      expect(seen.body).to.not.have.property('logit_bias');
    });
  });

  describe('streamed requests', () => {
    it('passes chunks through as they arrive: the client sees the first while the upstream holds the rest', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => { release = resolve; });
      let upstreamDone = false;
      fake.enqueue({ holdUntil: held, holdAfterEvents: AFTER_FIRST_WORD });
      const res = await chat({ model: model.id, messages: [{ role: 'user', content: 'stream it' }], stream: true });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/event-stream/);
      void last().closed.then(() => { upstreamDone = true; });
      const reader = res.body!.getReader();
      const state = { text: '' };
      await within(3000, 'first chunk while the upstream holds the rest', readUntil(reader, state, (t) => contentOf(t).includes(ANSWER_WORDS[0]!)));
      expect(upstreamDone).to.equal(false);
      expect(contentOf(state.text)).to.equal(ANSWER_WORDS[0]);
      release();
      await readUntil(reader, state, () => false);
      expect(contentOf(state.text)).to.equal(ANSWER);
      expect(state.text.trimEnd().endsWith('data: [DONE]')).to.equal(true);
      expect(last().body.stream).to.equal(true);
    });

    it('adds the usage chunk when the client asks for include_usage', async () => {
      const stream = await client.chat.completions.create({ model: model.id, messages: [{ role: 'user', content: 'usage please' }], stream: true, stream_options: { include_usage: true } });
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).to.equal(ANSWER);
      const usage = chunks.filter((c) => c.usage);
      expect(usage).to.have.length(1);
      expect(usage[0]!.usage!.total_tokens).to.equal(TOTAL_TOKENS);
      expect(usage[0]!.choices).to.deep.equal([]);
      expect(last().body.stream_options).to.deep.equal({ include_usage: true });
    });

    it('holds the usage chunk back when the client did not ask, though the upstream was asked for it', async () => {
      const stream = await client.chat.completions.create({ model: model.id, messages: [{ role: 'user', content: 'no usage' }], stream: true });
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).to.equal(ANSWER);
      expect(chunks.some((c) => c.usage)).to.equal(false);
      expect(chunks.some((c) => c.choices[0]?.finish_reason === 'stop')).to.equal(true);
      expect((last().body.stream_options as { include_usage?: boolean }).include_usage).to.equal(true);
    });

    it('streams from the YAML-only provider too', async () => {
      const stream = await client.chat.completions.create({ model: ACME_MODEL.id, messages: [{ role: 'user', content: 'acme stream' }], stream: true, stream_options: { include_usage: false } });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).to.equal(ANSWER);
      expect(acme.last().body.model).to.equal(ACME_MODEL.upstream);
      expect((acme.last().body.stream_options as { include_usage?: boolean }).include_usage).to.equal(true);
    });
  });

  describe('upstream errors', () => {
    it('keeps a 400 with the provider message (openai BadRequestError)', async () => {
      fake.enqueue({ status: 400, errorBody: { error: { message: "Invalid 'messages[0].content': string too long.", type: 'invalid_request_error', param: 'messages', code: 'string_above_max_length' } } });
      try {
        await client.chat.completions.create({ model: model.id, messages: [{ role: 'user', content: 'too long' }] });
        expect.fail('expected 400');
      } catch (e) {
        expect(e).to.be.instanceOf(OpenAI.BadRequestError);
        const err = e as InstanceType<typeof OpenAI.BadRequestError>;
        expect(err.status).to.equal(400);
        expect(err.message).to.include("Invalid 'messages[0].content': string too long.");
        expect(err.type).to.equal('invalid_request_error');
        expect(err.message).to.not.include(OPENAI_KEY);
      }
    });

    it('keeps a 429 and its Retry-After', async () => {
      fake.enqueue({ status: 429, errorBody: { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } }, retryAfter: '7' });
      const res = await chat({ model: model.id, messages: [{ role: 'user', content: 'x' }] });
      expect(res.status).to.equal(429);
      expect(res.headers.get('retry-after')).to.equal('7');
      const body = await res.json() as { error: { type: string; message: string } };
      expect(body.error.type).to.equal('rate_limit_error');
      expect(body.error.message).to.include('Rate limit reached for requests');
    });

    it('maps a 500 to 502', async () => {
      fake.enqueue({ status: 500, errorBody: { error: { message: 'The server had an error while processing your request.', type: 'server_error' } } });
      const res = await chat({ model: model.id, messages: [{ role: 'user', content: 'x' }] });
      expect(res.status).to.equal(502);
      const body = await res.json() as { error: { type: string; message: string } };
      expect(body.error.type).to.equal('upstream_error');
      expect(body.error.message).to.include('The server had an error');
    });

    it('answers an error of a streamed request before the stream starts as a JSON envelope (the provider refusing its key is a 502)', async () => {
      fake.enqueue({ status: 401, errorBody: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } } });
      const res = await chat({ model: model.id, messages: [{ role: 'user', content: 'x' }], stream: true });
      expect(res.status).to.equal(502);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      const body = await res.json() as { error: { message: string; code: string } };
      expect(body.error.code).to.equal('upstream_auth_error');
      expect(body.error.message).to.include('Incorrect API key provided.');
    });
  });

  describe('client abort', () => {
    it('closes the upstream request when the client drops a stream mid-way', async () => {
      fake.enqueue({ holdUntil: new Promise(() => undefined), holdAfterEvents: AFTER_FIRST_WORD });
      const controller = new AbortController();
      const res = await chat({ model: model.id, messages: [{ role: 'user', content: 'abort me' }], stream: true }, controller.signal);
      const reader = res.body!.getReader();
      await within(3000, 'first chunk', readUntil(reader, { text: '' }, (t) => contentOf(t).length > 0));
      controller.abort();
      expect(await within(3000, 'the upstream request to be closed', last().closed)).to.equal('aborted');
    });

    it('closes the upstream request when the client drops a plain request', async () => {
      fake.enqueue({ hang: true });
      const controller = new AbortController();
      const pending = chat({ model: model.id, messages: [{ role: 'user', content: 'abort me too' }] }, controller.signal).catch((e: unknown) => e);
      await within(3000, 'the upstream to receive the request', (async () => { while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 20)); })());
      controller.abort();
      expect(await within(3000, 'the upstream request to be closed', last().closed)).to.equal('aborted');
      expect((await pending as Error).name).to.equal('AbortError');
    });
  });

  describe('unreachable and slow upstreams', () => {
    it('answers 502 upstream_unreachable when nothing listens at the base URL', async () => {
      const port = await freePort(); // nothing listens on it once returned
      const down = await startGateway({ configPath: copy.path, env: env(`http://127.0.0.1:${port}`) });
      try {
        const res = await fetch(`${down.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: model.id, messages: [{ role: 'user', content: 'x' }] }),
        });
        expect(res.status).to.equal(502);
        const body = await res.json() as { error: { code: string; type: string } };
        expect(body.error.code).to.equal('upstream_unreachable');
      } finally {
        await down.close();
      }
    });

    it('answers 504 upstream_timeout when the upstream hangs past GATEWAY_UPSTREAM_TIMEOUT_MS, and lets go of it', async () => {
      const slow = await startGateway({ configPath: copy.path, env: env(fake.url, { GATEWAY_UPSTREAM_TIMEOUT_MS: '400' }) });
      try {
        fake.enqueue({ hang: true });
        const started = Date.now();
        const res = await fetch(`${slow.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: model.id, messages: [{ role: 'user', content: 'x' }] }),
        });
        expect(res.status).to.equal(504);
        expect(Date.now() - started).to.be.within(350, 3000);
        const body = await res.json() as { error: { code: string } };
        expect(body.error.code).to.equal('upstream_timeout');
        expect(await within(3000, 'the timed-out upstream request to be closed', last().closed)).to.equal('aborted');
      } finally {
        await slow.close();
      }
    });
  });
});
