/**
 * Google Vertex AI end to end (issue 29): Gemini through the Gemini codec at Vertex URLs and
 * Claude through rawPredict / streamRawPredict, with OAuth2 tokens the gateway gets from a fake
 * Google token endpoint by a service-account JWT assertion (RS256, key made by the test), sent
 * to a fake Vertex that accepts only those tokens. Official clients on every text surface,
 * plain and streamed, with tools; embeddings through `:predict`; not configured without
 * credentials; a token that expires mid-run is refreshed without a failed call; a token
 * endpoint that refuses answers 502 upstream_auth_error, counted by the breaker.
 */
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { startKitUpstream, type KitUpstream } from '../../kit/fake-upstream.js';
import { ANSWERS } from '../text/support/scenario.js';
import { makeServiceAccount, startGoogleTokenServer, type GoogleTokenServer, type ServiceAccount } from './support/google-token-server.js';
import { aiSdkCells } from './support/ai-sdk-cells.js';
import { textCells } from './support/text-cells.js';
import { startVertexFront, type VertexFront } from './support/vertex-front.js';

const PROJECT = 'gw-test-project';

interface VertexRig { sa: ServiceAccount; tokens: GoogleTokenServer; gemini: KitUpstream; anthropic: KitUpstream; front: VertexFront; env: Record<string, string>; close(): Promise<void> }

async function startRig(lifetimeSeconds = 3600): Promise<VertexRig> {
  const sa = makeServiceAccount(PROJECT);
  const tokens = await startGoogleTokenServer(sa, lifetimeSeconds);
  const [gemini, anthropic] = await Promise.all([
    startKitUpstream('gemini', 'kit-gemini-key-0001', { dialects: ['gemini'] }),
    startKitUpstream('anthropic', 'sk-ant-kit-0002', { dialects: ['anthropic-messages'] }),
  ]);
  const front = await startVertexFront({ project: PROJECT, accepts: (t) => tokens.accepts(t), gemini, anthropic });
  const env = { GOOGLE_CLOUD_PROJECT: PROJECT, VERTEX_BASE_URL: front.url, GOOGLE_APPLICATION_CREDENTIALS: sa.file, GOOGLE_TOKEN_URL: tokens.url };
  return {
    sa, tokens, gemini, anthropic, front, env,
    close: async () => { await Promise.all([front.close(), tokens.close(), gemini.close(), anthropic.close()]); sa.remove(); },
  };
}

function expectClean(rig: VertexRig): void {
  expect(rig.front.violations, 'requests Vertex would refuse').to.deep.equal([]);
  expect([...rig.gemini.violations, ...rig.anthropic.violations], 'requests the APIs would refuse').to.deep.equal([]);
  expect(rig.front.unauthenticated, 'calls refused for their token').to.equal(0);
  expect(rig.tokens.refusals, 'token requests refused').to.deep.equal([]);
}

describe('e2e cloud: Google Vertex AI', function () {
  this.timeout(60_000);
  let rig: VertexRig;
  let gw: TestGateway;
  before(async () => {
    rig = await startRig();
    gw = await startGateway({ env: rig.env });
  });
  after(async () => {
    await gw?.close();
    await rig?.close();
  });
  beforeEach(() => {
    rig.front.reset();
    rig.gemini.reset();
    rig.anthropic.reset();
  });

  const geminiChecks = (): void => {
    expectClean(rig);
    const call = rig.front.calls.at(-1)!;
    expect(call.publisher).to.equal('google');
    expect(call.location, 'the provider location (us-central1 default)').to.equal('us-central1');
  };
  const claudeChecks = (): void => {
    expectClean(rig);
    const call = rig.front.calls.at(-1)!;
    expect(call.publisher).to.equal('anthropic');
    expect(call.body.anthropic_version).to.equal('vertex-2023-10-16');
  };

  describe('Gemini (vertex/gemini-3.8-flash)', () => {
    aiSdkCells(() => gw, 'vertex/gemini-3.8-flash', (...f) => rig.gemini.enqueue(...f), geminiChecks);
    textCells(() => gw, 'vertex/gemini-3.8-flash', (...f) => rig.gemini.enqueue(...f), () => {
      expectClean(rig);
      const call = rig.front.calls.at(-1)!;
      expect(call.publisher).to.equal('google');
      expect(call.location, 'the provider location (us-central1 default)').to.equal('us-central1');
      expect(call.model).to.equal('gemini-3.8-flash');
    });
  });

  describe('Claude (vertex-claude/claude-sonnet-5-5)', () => {
    aiSdkCells(() => gw, 'vertex-claude/claude-sonnet-5-5', (...f) => rig.anthropic.enqueue(...f), claudeChecks);
    textCells(() => gw, 'vertex-claude/claude-sonnet-5-5', (...f) => rig.anthropic.enqueue(...f), () => {
      expectClean(rig);
      const call = rig.front.calls.at(-1)!;
      expect(call.publisher).to.equal('anthropic');
      expect(call.location, 'the provider location (us-east5 default)').to.equal('us-east5');
      expect(call.model, 'the versioned Vertex model id in the path').to.equal('claude-sonnet-5-5@20260415');
      expect(call.body.anthropic_version).to.equal('vertex-2023-10-16');
      expect(call.body).to.not.have.property('model');
      expect(call.method).to.equal(call.body.stream === true ? 'streamRawPredict' : 'rawPredict');
    });

    it('prompt caching: cache_control on system, tools and content blocks reaches Vertex Claude, passed through and translated', async () => {
      const client = new Anthropic({ apiKey: gw.key, baseURL: gw.url, maxRetries: 0 });
      const ask: Anthropic.MessageCreateParamsNonStreaming = {
        model: 'vertex-claude/claude-sonnet-5-5', max_tokens: 100,
        system: [{ type: 'text', text: 'Long shared instructions.', cache_control: { type: 'ephemeral' } }],
        tools: [{ name: 'lookup', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } }],
        tool_choice: { type: 'none' },
        messages: [{ role: 'user', content: [{ type: 'text', text: 'A shared document.', cache_control: { type: 'ephemeral', ttl: '1h' } }, { type: 'text', text: 'Question?' }] }],
      };
      await client.messages.create(ask);
      // A budget makes the gateway translate the call.
      await client.messages.create({ ...ask, max_budget_usd: 1 } as Anthropic.MessageCreateParamsNonStreaming);
      expectClean(rig);
      expect(rig.front.calls).to.have.length(2);
      for (const call of rig.front.calls) {
        expect(call.breakpoints, 'the front found the three breakpoints').to.deep.equal(['system[0]', 'tools[0]', 'messages[0].content[0]']);
        expect((call.body.messages as Array<{ content: Array<Record<string, unknown>> }>)[0]!.content[0]!.cache_control).to.deep.equal({ type: 'ephemeral', ttl: '1h' });
      }
    });
  });

  describe('afterwards', () => {
    it('fetched one token for every call so far (never per request)', () => {
      expect(rig.tokens.issued).to.equal(1);
    });
  });

  it('embeds through :predict with the same credentials', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    const res = await client.embeddings.create({ model: 'vertex/text-embedding-005', input: ['first text', 'second text'], dimensions: 3, encoding_format: 'float' });
    expect(res.data).to.have.length(2);
    expect(res.data[0]!.embedding).to.deep.equal([0.1, 0.11, 0.12]);
    expect(res.data[1]!.index).to.equal(1);
    expect(res.model).to.equal('vertex/text-embedding-005');
    const call = rig.front.calls.at(-1)!;
    expect(call.method).to.equal('predict');
    expect(call.body).to.deep.equal({ instances: [{ content: 'first text' }, { content: 'second text' }], parameters: { outputDimensionality: 3 } });
    expectClean(rig);
    // The SDK's default base64 encoding is made by the gateway from the float values.
    const b64 = await client.embeddings.create({ model: 'vertex/text-embedding-005', input: 'one', dimensions: 2 });
    expect(b64.data[0]!.embedding.map((v) => Number(v.toFixed(4)))).to.deep.equal([0.1, 0.11]);
  });
});

describe('e2e cloud: Vertex AI credentials', function () {
  this.timeout(60_000);

  it('lists Vertex models as not configured without credentials, and says what to set', async () => {
    const home = mkdtempSync(join(tmpdir(), 'gw-nohome-'));
    const gw = await startGateway({ env: { GOOGLE_CLOUD_PROJECT: PROJECT, HOME: home } });
    try {
      const list = await (await fetch(`${gw.url}/v1/models`, { headers: { authorization: `Bearer ${gw.key}` } })).json() as { data: Array<{ id: string }> };
      expect(list.data.map((m) => m.id).filter((id) => id.startsWith('vertex'))).to.deep.equal([]);
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'vertex/gemini-3.8-flash', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).to.equal(400);
      const body = await res.json() as { error: { code: string; message: string } };
      expect(body.error.code).to.equal('provider_not_configured');
      expect(body.error.message).to.include('GOOGLE_APPLICATION_CREDENTIALS');
    } finally {
      await gw.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('refreshes a token that expires mid-run without a failed call', async () => {
    const rig = await startRig(3);
    const gw = await startGateway({ env: rig.env });
    try {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
      const started = Date.now();
      let calls = 0;
      while (Date.now() - started < 7000) {
        rig.gemini.enqueue({ fixture: 'text' });
        const out = await client.chat.completions.create({ model: 'vertex/gemini-3.8-flash', messages: [{ role: 'user', content: 'What is the capital of France?' }] });
        expect(out.choices[0]!.message.content).to.equal(ANSWERS.text);
        calls++;
        await new Promise((r) => setTimeout(r, 150));
      }
      expect(calls).to.be.greaterThan(10);
      expect(rig.tokens.issued, 'tokens of 3 s over 7 s: refreshed, not fetched per call').to.be.within(2, 5);
      expect(rig.front.unauthenticated, 'no call carried an expired token').to.equal(0);
    } finally {
      await gw.close();
      await rig.close();
    }
  });

  it('answers 502 upstream_auth_error naming provider and source when the token cannot be had, and the breaker counts it', async () => {
    const rig = await startRig();
    rig.tokens.setRefusing(true);
    // `refuse` shows the open breaker as a 503; under the default `try` a lone target is still tried (issue 27).
    const gw = await startGateway({ env: { ...rig.env, GATEWAY_BREAKER_FAILURES: '2', GATEWAY_BREAKER_WHEN_ALL_OPEN: 'refuse' } });
    const ask = () => fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vertex/gemini-3.8-flash', messages: [{ role: 'user', content: 'hi' }] }),
    });
    try {
      const res = await ask();
      expect(res.status).to.equal(502);
      const text = await res.text();
      const body = JSON.parse(text) as { error: { type: string; code: string; message: string } };
      expect(body.error.code).to.equal('upstream_auth_error');
      expect(body.error.message).to.include("Provider 'vertex'").and.include('credentials file $GOOGLE_APPLICATION_CREDENTIALS').and.include('Invalid JWT Signature');
      expect(text, 'no key material in the answer').to.not.match(/PRIVATE KEY|ya29\./);
      expect(rig.front.calls, 'no Vertex call without a token').to.have.length(0);
      expect((await ask()).status).to.equal(502);
      const open = await ask();
      expect(open.status, 'two credential failures opened the breaker').to.equal(503);
      expect(((await open.json()) as { error: { code: string } }).error.code).to.equal('upstream_circuit_open');
    } finally {
      await gw.close();
      await rig.close();
    }
  });

  it('fetches the token once for concurrent first calls (single flight)', async () => {
    const rig = await startRig();
    const gw = await startGateway({ env: rig.env });
    try {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
      for (let i = 0; i < 8; i++) rig.gemini.enqueue({ fixture: 'text' });
      const outs = await Promise.all(Array.from({ length: 8 }, () => client.chat.completions.create({ model: 'vertex/gemini-3.8-flash', messages: [{ role: 'user', content: 'hi' }] })));
      expect(outs.every((o) => o.choices[0]!.message.content === ANSWERS.text)).to.equal(true);
      expect(rig.tokens.issued).to.equal(1);
    } finally {
      await gw.close();
      await rig.close();
    }
  });
});
