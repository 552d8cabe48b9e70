import { expect } from 'chai';
import { WebSocket } from 'ws';
import { encodeWav } from '../../../src/providers/sandbox/wav.js';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { errorCode, post, sseData, streamCost } from './support/client.js';
import { startKitUpstream, type KitUpstream } from '../../kit/fake-upstream.js';
import { chatAnswer } from '../../kit/scripted-answers.js';
import { writeProject } from './support/project.js';

// A 1x1 PNG.
const TINY_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
// echo-1 test prices: prompt 1e-6, completion 1e-5 per token; a streamed chunk is one word.
const COMPLETION = 0.00001;
const ONE_CHUNK = 2 * COMPLETION;
const LONG = `Please repeat: ${'lorem ipsum dolor sit amet '.repeat(60)}`;
const BUDGET = 0.0008; // the prompt (~0.0004 worst case) plus about 40 output tokens

/** Reads `usage.cost`, the finish and whether the answer was cut, whatever the surface. */
interface Outcome { cost: number; truncated: boolean }

const surfaces: Array<{ path: string; body: Record<string, unknown>; outcome(json: Record<string, unknown>): Outcome; streamed?: (text: string) => Outcome }> = [
  {
    path: '/v1/chat/completions',
    body: { model: 'sandbox/echo-1', messages: [{ role: 'user', content: LONG }] },
    outcome: (j) => ({ cost: (j.usage as { cost: number }).cost, truncated: (j.choices as Array<{ finish_reason: string }>)[0]!.finish_reason === 'length' }),
    streamed: (t) => ({ cost: streamCost(t)!, truncated: sseData(t).some((c) => (c as { choices?: Array<{ finish_reason?: string }> }).choices?.[0]?.finish_reason === 'length') }),
  },
  {
    path: '/v1/messages',
    body: { model: 'sandbox/echo-1', max_tokens: 4000, messages: [{ role: 'user', content: LONG }] },
    outcome: (j) => ({ cost: (j.usage as { cost: number }).cost, truncated: j.stop_reason === 'max_tokens' }),
    streamed: (t) => {
      const delta = sseData(t).find((e) => (e as { type?: string }).type === 'message_delta') as { delta: { stop_reason: string }; usage: { cost: number } };
      return { cost: delta.usage.cost, truncated: delta.delta.stop_reason === 'max_tokens' };
    },
  },
  {
    path: '/v1/responses',
    body: { model: 'sandbox/echo-1', input: LONG },
    outcome: (j) => ({ cost: (j.usage as { cost: number }).cost, truncated: j.status === 'incomplete' }),
    streamed: (t) => {
      const done = sseData(t).find((e) => /^response\.(completed|incomplete)$/.test(String((e as { type?: string }).type))) as { type: string; response: { usage: { cost: number } } };
      return { cost: done.response.usage.cost, truncated: done.type === 'response.incomplete' };
    },
  },
  {
    path: '/v1/research/runs',
    body: { model: 'sandbox/echo-1', input: LONG },
    outcome: (j) => ({ cost: (j.usage as { cost: number }).cost, truncated: j.status !== 'completed' }),
    // Task surfaces have no `stream` field (SPEC 4.10, 4.11): nothing to stream.
  },
  {
    path: '/v1/robotics/sessions',
    body: { model: 'sandbox/echo-1', input: LONG },
    outcome: (j) => ({ cost: (j.usage as { cost: number }).cost, truncated: j.status !== 'completed' }),
    // Task surfaces have no `stream` field (SPEC 4.10, 4.11): nothing to stream.
  },
];

describe('e2e/budget: max_budget_usd on every operation', () => {
  let gw: TestGateway;
  let fake: KitUpstream;

  before(async () => {
    // An upstream that ignores output limits: always 400 words (one o200k token each), one chunk every 2 ms.
    fake = await startKitUpstream('fake-openai', 'upstream-key', {
      dialects: ['openai-chat'],
      answer: chatAnswer(Array<string>(400).fill(' word'), { prompt_tokens: 20, completion_tokens: 400, total_tokens: 420, prompt_tokens_details: { cached_tokens: 0 } }),
      defaultFault: { eventDelayMs: 2 },
    });
    gw = await startGateway({ configPath: writeProject({ fakeOpenAiBaseUrl: `${fake.url}/v1` }), env: { FAKE_API_KEY: 'upstream-key' } });
  });
  afterEach(() => {
    expect(fake.violations, 'requests OpenAI would have refused').to.deep.equal([]);
  });
  after(async () => {
    await gw.close();
    await fake.close();
  });

  for (const s of surfaces) {
    describe(s.path, () => {
      it('answers within budget by lowering the output limit (plain)', async () => {
        const free = await post(`${gw.url}${s.path}`, gw.key, s.body);
        expect(s.outcome(free.json).cost, 'unbudgeted answer costs more than the budget').to.be.greaterThan(BUDGET);
        const r = await post(`${gw.url}${s.path}`, gw.key, { ...s.body, max_budget_usd: BUDGET });
        expect(r.status, r.text).to.equal(200);
        const o = s.outcome(r.json);
        expect(o.cost).to.be.greaterThan(0).and.at.most(BUDGET);
        expect(o.truncated).to.equal(true);
      });

      const streamed = s.streamed;
      if (streamed) {
        it('answers within budget plus one chunk (streamed)', async () => {
          const r = await post(`${gw.url}${s.path}`, gw.key, { ...s.body, max_budget_usd: BUDGET, stream: true });
          expect(r.status).to.equal(200);
          const o = streamed(r.text);
          expect(o.cost).to.be.greaterThan(0).and.at.most(BUDGET + ONE_CHUNK);
          expect(o.truncated).to.equal(true);
        });
      }

      it('refuses with 400 budget_exceeded and the estimate when no useful answer fits', async () => {
        const r = await post(`${gw.url}${s.path}`, gw.key, { ...s.body, max_budget_usd: 0.0001 });
        expect(r.status).to.equal(400);
        expect(errorCode(r.json)).to.equal('budget_exceeded');
        const details = (r.json.error as { details: { estimate_usd: number; max_budget_usd: number } }).details;
        expect(details.estimate_usd).to.be.greaterThan(0.0001);
        expect(details.max_budget_usd).to.equal(0.0001);
        if (s.path === '/v1/messages') expect(r.json.type).to.equal('error');
      });
    });
  }

  describe('a same-format upstream that ignores the output limit', () => {
    it('is translated, told the lowered limit, and cut when the budget is spent', async () => {
      const budget = 20 * 0.000001 + 50 * COMPLETION;
      const r = await post(`${gw.url}/v1/chat/completions`, gw.key, { model: 'fake/chat', messages: [{ role: 'user', content: 'Talk.' }], stream: true, stream_options: { include_usage: true }, max_budget_usd: budget });
      const sent = fake.last().body;
      expect(sent.max_budget_usd).to.equal(undefined);
      expect(sent.max_completion_tokens).to.be.a('number').and.within(40, 60);
      const chunks = sseData(r.text) as Array<{ choices?: Array<{ finish_reason?: string }>; usage?: { cost: number } }>;
      expect(chunks.some((c) => c.choices?.[0]?.finish_reason === 'length')).to.equal(true);
      const cost = chunks.find((c) => c.usage)!.usage!.cost;
      expect(cost).to.be.at.most(budget + COMPLETION + 1e-12);
      expect(streamCost(r.text)).to.equal(cost);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(fake.last().aborted).to.equal(true);
      // Events written: the role chunk and the words before the gateway hung up.
      expect(fake.last().eventsSent).to.be.lessThan(400);
    });
  });

  describe('non-text operations', () => {
    const cases: Array<{ name: string; path: string; body: Record<string, unknown>; worst: number }> = [
      { name: 'images', path: '/v1/images/generations', body: { model: 'sandbox/image-1', prompt: 'a cat', n: 3 }, worst: 0.03 },
      { name: 'image edits', path: '/v1/images/edits', body: { model: 'sandbox/image-1', prompt: 'a hat', n: 2, image: `data:image/png;base64,${TINY_PNG}` }, worst: 0.02 },
      { name: 'speech', path: '/v1/audio/speech', body: { model: 'sandbox/speech-1', input: 'Hello there, this is a budget test.' }, worst: 35 * 0.15 * 0.001 },
      { name: 'music', path: '/v1/audio/music', body: { model: 'sandbox/music-1', input: 'calm piano', duration_seconds: 5 }, worst: 5 * 0.001 },
      { name: 'transcription', path: '/v1/audio/transcriptions', body: { model: 'sandbox/transcribe-1', audio_base64: encodeWav(new Float32Array(16000 * 3), {}).toString('base64') }, worst: 3 * 0.001 },
      { name: 'video', path: '/v1/video/generations', body: { model: 'sandbox/video-1', prompt: 'waves', duration_seconds: 4, max_wait_seconds: 1 }, worst: 0.2 },
    ];
    for (const c of cases) {
      it(`${c.name}: 400 budget_exceeded over the worst case, served and within budget under it`, async () => {
        const refused = await post(`${gw.url}${c.path}`, gw.key, { ...c.body, max_budget_usd: c.worst * 0.9 });
        expect(refused.status).to.equal(400);
        expect(errorCode(refused.json)).to.equal('budget_exceeded');
        expect((refused.json.error as { details: { estimate_usd: number } }).details.estimate_usd).to.be.closeTo(c.worst, 1e-9);
        const served = await post(`${gw.url}${c.path}`, gw.key, { ...c.body, max_budget_usd: c.worst });
        expect([200, 202]).to.include(served.status);
        expect(Number(served.headers.get('x-gateway-cost'))).to.be.greaterThan(0).and.at.most(c.worst + 1e-12);
      });
    }

    it('realtime: the session closes when its budget runs out, before its duration', async () => {
      // 0.1 USD per second: a 0.05 budget buys half a second of a 60-second session.
      const r = await post(`${gw.url}/v1/realtime/sessions`, gw.key, { model: 'sandbox/realtime-1', max_duration_seconds: 60, max_budget_usd: 0.05 });
      const ws = new WebSocket(String(r.json.url));
      const started = Date.now();
      const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
        ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
        ws.on('error', reject);
      });
      expect(closed).to.deep.equal({ code: 1000, reason: 'max_budget_reached' });
      expect(Date.now() - started).to.be.within(300, 3000);
    });

    it('realtime: the session closes at its duration when the budget lasts longer', async () => {
      const r = await post(`${gw.url}/v1/realtime/sessions`, gw.key, { model: 'sandbox/realtime-1', max_duration_seconds: 0.4, max_budget_usd: 10 });
      const ws = new WebSocket(String(r.json.url));
      const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
        ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
        ws.on('error', reject);
      });
      expect(closed.code).to.equal(1000);
      expect(closed.reason).to.equal('max_duration_reached');
    });
  });
});
