import { expect } from 'chai';
import { request as httpRequest } from 'node:http';
import { formatUsd } from '../../../src/billing/usd.js';
import { encodeWav } from '../../../src/providers/sandbox/wav.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { post, sseData, streamCost } from './support/client.js';
import { startKitUpstream, type KitUpstream } from '../../kit/fake-upstream.js';
import { chatAnswer, messagesAnswer } from '../../kit/scripted-answers.js';
import { writeProject } from './support/project.js';

// echo-1 test prices: prompt 1e-6, completion 1e-5 per token.
function chatCost(usage: { prompt_tokens: number; completion_tokens: number }): number {
  return usage.prompt_tokens * 0.000001 + usage.completion_tokens * 0.00001;
}

describe('e2e/budget: cost on every response', () => {
  let gw: TestGateway;
  let fake: KitUpstream;
  let anthropic: KitUpstream;
  const messages = [{ role: 'user', content: 'Tell me something about the weather today, please.' }];

  before(async () => {
    // Same-format upstreams with a known usage: 12 words after 30 prompt tokens; 9 words after 20 input and 100 cache-read tokens.
    fake = await startKitUpstream('fake-openai', 'upstream-key', {
      dialects: ['openai-chat'],
      answer: chatAnswer(Array<string>(12).fill(' word'), { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42, prompt_tokens_details: { cached_tokens: 0 } }),
    });
    anthropic = await startKitUpstream('fake-anthropic', 'upstream-key', {
      dialects: ['anthropic-messages'],
      answer: messagesAnswer(Array<string>(9).fill(' word'), { input_tokens: 20, cache_read_input_tokens: 100, output_tokens: 9 }),
    });
    gw = await startGateway({ configPath: writeProject({ fakeOpenAiBaseUrl: `${fake.url}/v1`, fakeAnthropicBaseUrl: anthropic.url }), env: { FAKE_API_KEY: 'upstream-key' } });
  });
  afterEach(() => {
    expect([...fake.violations, ...anthropic.violations], 'requests a provider would have refused').to.deep.equal([]);
  });
  after(async () => {
    await gw.close();
    await fake.close();
    await anthropic.close();
  });

  describe('text surfaces', () => {
    it('chat: usage.cost and x-gateway-cost from the reported usage', async () => {
      const r = await post(`${gw.url}/v1/chat/completions`, gw.key, { model: 'sandbox/echo-1', messages });
      expect(r.status).to.equal(200);
      const usage = r.json.usage as { prompt_tokens: number; completion_tokens: number; cost: number };
      expect(usage.cost).to.be.closeTo(chatCost(usage), 1e-12);
      expect(r.headers.get('x-gateway-cost')).to.equal(formatUsd(usage.cost));
    });

    it('chat stream: cost in the usage chunk, a closing comment and the HTTP trailer', async () => {
      const r = await post(`${gw.url}/v1/chat/completions`, gw.key, { model: 'sandbox/echo-1', messages, stream: true, stream_options: { include_usage: true } });
      const chunks = sseData(r.text);
      expect(chunks.at(-1)).to.equal('[DONE]');
      const usageChunk = chunks.at(-2) as { usage: { prompt_tokens: number; completion_tokens: number; cost: number } };
      expect(usageChunk.usage.cost).to.be.closeTo(chatCost(usageChunk.usage), 1e-12);
      expect(streamCost(r.text)).to.equal(Number(formatUsd(usageChunk.usage.cost)));
      expect(r.text.indexOf(': x-gateway-cost:')).to.be.lessThan(r.text.indexOf('data: [DONE]'));
      const trailer = await new Promise<string | undefined>((resolve, reject) => {
        const req = httpRequest(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.trailers['x-gateway-cost']));
        });
        req.on('error', reject);
        req.end(JSON.stringify({ model: 'sandbox/echo-1', messages, stream: true }));
      });
      expect(Number(trailer)).to.equal(Number(formatUsd(usageChunk.usage.cost)));
    });

    it('chat stream without include_usage: the cost rides in the closing comment only', async () => {
      const r = await post(`${gw.url}/v1/chat/completions`, gw.key, { model: 'sandbox/echo-1', messages, stream: true });
      expect(sseData(r.text).some((c) => typeof c === 'object' && c !== null && (c as { usage?: unknown }).usage)).to.equal(false);
      expect(streamCost(r.text)).to.be.greaterThan(0);
    });

    it('messages: usage.cost in the body and in the stream message_delta', async () => {
      const r = await post(`${gw.url}/v1/messages`, gw.key, { model: 'sandbox/echo-1', messages, max_tokens: 200 });
      const usage = r.json.usage as { input_tokens: number; output_tokens: number; cost: number };
      expect(usage.cost).to.be.closeTo(usage.input_tokens * 0.000001 + usage.output_tokens * 0.00001, 1e-12);
      expect(r.headers.get('x-gateway-cost')).to.equal(formatUsd(usage.cost));
      const s = await post(`${gw.url}/v1/messages`, gw.key, { model: 'sandbox/echo-1', messages, max_tokens: 200, stream: true });
      const delta = sseData(s.text).find((e) => (e as { type?: string }).type === 'message_delta') as { usage: { cost: number } };
      expect(delta.usage.cost).to.equal(usage.cost);
    });

    it('responses: usage.cost in the body and in response.completed', async () => {
      const r = await post(`${gw.url}/v1/responses`, gw.key, { model: 'sandbox/echo-1', input: 'What is the weather like?' });
      const usage = r.json.usage as { input_tokens: number; output_tokens: number; cost: number };
      expect(usage.cost).to.be.closeTo(usage.input_tokens * 0.000001 + usage.output_tokens * 0.00001, 1e-12);
      const s = await post(`${gw.url}/v1/responses`, gw.key, { model: 'sandbox/echo-1', input: 'What is the weather like?', stream: true });
      const done = sseData(s.text).find((e) => (e as { type?: string }).type === 'response.completed') as { response: { usage: { cost: number } } };
      expect(done.response.usage.cost).to.equal(usage.cost);
    });

    for (const [path, body] of [['/v1/research/runs', { input: 'Research the weather.' }], ['/v1/robotics/sessions', { input: 'Pick up the cup.' }]] as const) {
      it(`${path}: usage.cost in the body, also when stream: true (answered as JSON, SPEC 4.10/4.11)`, async () => {
        const r = await post(`${gw.url}${path}`, gw.key, { model: 'sandbox/echo-1', ...body });
        const usage = r.json.usage as { input_tokens: number; output_tokens: number; cost: number };
        expect(usage.cost).to.be.closeTo(usage.input_tokens * 0.000001 + usage.output_tokens * 0.00001, 1e-12);
        expect(r.headers.get('x-gateway-cost')).to.equal(formatUsd(usage.cost));
        const s = await post(`${gw.url}${path}`, gw.key, { model: 'sandbox/echo-1', ...body, stream: true });
        expect((s.json.usage as { cost: number }).cost).to.equal(usage.cost);
      });
    }

    it('same-format passthrough: usage.cost added to the upstream body and usage chunk', async () => {
      const r = await post(`${gw.url}/v1/chat/completions`, gw.key, { model: 'fake/chat', messages });
      expect((r.json.usage as { cost: number }).cost).to.be.closeTo(30 * 0.000001 + 12 * 0.00001, 1e-12);
      expect(r.headers.get('x-gateway-cost')).to.equal(formatUsd(30 * 0.000001 + 12 * 0.00001));
      const s = await post(`${gw.url}/v1/chat/completions`, gw.key, { model: 'fake/chat', messages, stream: true, stream_options: { include_usage: true } });
      const usageChunk = sseData(s.text).at(-2) as { usage: { cost: number } };
      expect(usageChunk.usage.cost).to.be.closeTo(30 * 0.000001 + 12 * 0.00001, 1e-12);
      expect(streamCost(s.text)).to.equal(usageChunk.usage.cost);
    });

    it('same-format messages passthrough: cached tokens at their own rate, cost in message_delta', async () => {
      const expected = 20 * 0.000003 + 100 * 0.0000003 + 9 * 0.000015;
      const r = await post(`${gw.url}/v1/messages`, gw.key, { model: 'fakeanthropic/claude', messages, max_tokens: 100 });
      expect((r.json.usage as { cost: number }).cost).to.be.closeTo(expected, 1e-12);
      const s = await post(`${gw.url}/v1/messages`, gw.key, { model: 'fakeanthropic/claude', messages, max_tokens: 100, stream: true });
      const events = sseData(s.text) as Array<{ type: string; usage?: { cost?: number } }>;
      expect(events.map((e) => e.type).slice(-2)).to.deep.equal(['message_delta', 'message_stop']);
      expect(events.at(-2)!.usage!.cost).to.be.closeTo(expected, 1e-12);
      expect(streamCost(s.text)).to.equal(Number(formatUsd(expected)));
    });
  });

  describe('other operations', () => {
    it('embeddings: prompt tokens x price', async () => {
      const r = await post(`${gw.url}/v1/embeddings`, gw.key, { model: 'sandbox/embed-1', input: ['hello world', 'good night'] });
      const usage = r.json.usage as { prompt_tokens: number; cost: number };
      expect(usage.cost).to.be.closeTo(usage.prompt_tokens * 0.0000001, 1e-15);
      expect(r.headers.get('x-gateway-cost')).to.equal(formatUsd(usage.cost));
    });

    it('rerank: the per-request price', async () => {
      const r = await post(`${gw.url}/v1/rerank`, gw.key, { model: 'sandbox/rerank-1', query: 'cat', documents: ['a cat', 'a dog'] });
      expect(r.headers.get('x-gateway-cost')).to.equal('0.00005');
      expect((r.json.usage as { cost: number }).cost).to.equal(0.00005);
    });

    it('images: delivered images x price (header only: the body has no usage)', async () => {
      const r = await post(`${gw.url}/v1/images/generations`, gw.key, { model: 'sandbox/image-1', prompt: 'a cat', n: 3 });
      expect(r.status).to.equal(200);
      expect(r.headers.get('x-gateway-cost')).to.equal('0.03');
      expect(r.json.usage).to.equal(undefined);
    });

    it('speech bytes: seconds of audio delivered x price', async () => {
      const res = await fetch(`${gw.url}/v1/audio/speech`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sandbox/speech-1', input: 'Hello there, world.' }) });
      const seconds = Number(res.headers.get('x-audio-duration-seconds'));
      expect(seconds).to.be.greaterThan(0);
      expect(Number(res.headers.get('x-gateway-cost'))).to.be.closeTo(seconds * 0.001, 1e-9);
      await res.arrayBuffer();
    });

    it('music and transcription: duration_seconds x price', async () => {
      const m = await post(`${gw.url}/v1/audio/music`, gw.key, { model: 'sandbox/music-1', input: 'calm piano', duration_seconds: 3 });
      expect(Number(m.headers.get('x-gateway-cost'))).to.be.closeTo((m.json.duration_seconds as number) * 0.001, 1e-9);
      const wav = encodeWav(new Float32Array(16000 * 2), {});
      const t = await post(`${gw.url}/v1/audio/transcriptions`, gw.key, { model: 'sandbox/transcribe-1', audio_base64: wav.toString('base64') });
      expect((t.json.usage as { cost: number }).cost).to.be.closeTo(2 * 0.001, 1e-9);
    });

    it('video: requested seconds x price, also when the job is still running', async () => {
      const r = await post(`${gw.url}/v1/video/generations`, gw.key, { model: 'sandbox/video-1', prompt: 'waves', duration_seconds: 4, max_wait_seconds: 1 });
      expect([200, 202]).to.include(r.status);
      expect(r.headers.get('x-gateway-cost')).to.equal('0.2');
    });

    it('realtime session creation costs nothing: the session is metered while open', async () => {
      const r = await post(`${gw.url}/v1/realtime/sessions`, gw.key, { model: 'sandbox/realtime-1', max_duration_seconds: 10, max_budget_usd: 1 });
      expect(r.status).to.equal(200);
      expect(r.headers.get('x-gateway-cost')).to.equal('0');
    });
  });
});
