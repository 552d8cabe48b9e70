/**
 * Azure OpenAI end to end (issue 29): the v1 API (`/openai/v1/chat/completions`, deployment name
 * as `model`) with Microsoft Entra ID tokens from a fake authority (client credentials over TLS,
 * trusted by the gateway process through NODE_EXTRA_CA_CERTS) or the resource's `api-key`, sent
 * to a fake Azure OpenAI that accepts only those. Official clients and the AI SDK on every text
 * surface, plain and streamed, with tools; token expiry mid-run; content filter annotations,
 * the annotation-only first stream chunk, `finish_reason: content_filter` on every surface, and
 * the content-filter 400's code; embeddings through a deployment; not configured without
 * credentials.
 */
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import OpenAI from 'openai';
import { freePort } from '../../helpers/free-port.js';
import { startGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { startKitUpstream, type KitUpstream } from '../../kit/fake-upstream.js';
import { spawnGateway } from '../budget/support/process.js';
import { ANSWERS } from '../text/support/scenario.js';
import { aiSdkCells } from './support/ai-sdk-cells.js';
import { CHOICE_FILTER_RESULTS, PROMPT_FILTER_RESULTS, startAzureFront, type AzureFront } from './support/azure-front.js';
import { startEntraServer, type EntraServer } from './support/entra-server.js';
import { textCells } from './support/text-cells.js';

const MODEL = 'azure/gpt-6.1-terra';
const APP = { tenantId: '72f988bf-0000-4000-8000-00000000cafe', clientId: '0f2c4a3e-1111-4111-8111-000000000001', clientSecret: 'entra-test-secret-0123456789' };
const AZURE_KEY = 'azure-resource-key-0123456789abcdef';

function expectClean(front: AzureFront, kit: KitUpstream, auth: 'api-key' | 'entra'): void {
  expect(front.violations, 'requests Azure would refuse').to.deep.equal([]);
  expect(kit.violations, 'requests the OpenAI API would refuse').to.deep.equal([]);
  expect(front.unauthenticated, 'calls refused for their credentials').to.equal(0);
  expect(front.calls.at(-1)?.auth).to.equal(auth);
}

/** A gateway process trusting the fake authority's certificate, as an operator's would. */
async function spawnEntraGateway(entra: EntraServer, front: AzureFront, extra: Record<string, string> = {}): Promise<TestGateway & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-entra-'));
  const ca = join(dir, 'authority.pem');
  writeFileSync(ca, entra.cert);
  const port = await freePort();
  const proc = await spawnGateway(resolve(process.cwd(), 'gateway.yaml'), port, TEST_KEY, {
    GATEWAY_API_KEYS: TEST_KEY,
    PORT: String(port),
    HOST: '127.0.0.1',
    GATEWAY_FILES_DIR: join(dir, 'files'),
    GATEWAY_RETRY_ATTEMPTS: '1',
    NODE_EXTRA_CA_CERTS: ca,
    AZURE_OPENAI_ENDPOINT: front.url,
    AZURE_TENANT_ID: APP.tenantId,
    AZURE_CLIENT_ID: APP.clientId,
    AZURE_CLIENT_SECRET: APP.clientSecret,
    AZURE_AUTHORITY_HOST: entra.url,
    ...extra,
  });
  return { url: proc.url, key: TEST_KEY, dir, close: async () => { await proc.stop(); rmSync(dir, { recursive: true, force: true }); } };
}

describe('e2e cloud: Azure OpenAI with Entra ID tokens', function () {
  this.timeout(60_000);
  let entra: EntraServer;
  let kit: KitUpstream;
  let front: AzureFront;
  let gw: TestGateway;
  before(async () => {
    entra = await startEntraServer(APP);
    kit = await startKitUpstream('openai', 'sk-kit-azure-0001', { dialects: ['openai-chat'] });
    front = await startAzureFront({ acceptsToken: (t) => entra.accepts(t), openai: kit });
    gw = await spawnEntraGateway(entra, front);
  });
  after(async () => {
    await gw?.close();
    await Promise.all([front?.close(), kit?.close(), entra?.close()]);
  });
  beforeEach(() => {
    front.reset();
    kit.reset();
  });

  const checks = (): void => {
    expectClean(front, kit, 'entra');
    expect(front.calls.at(-1)!.path).to.equal('/openai/v1/chat/completions');
    expect(front.calls.at(-1)!.body.model, 'the deployment name').to.equal('gpt-6.1-terra');
  };
  textCells(() => gw, MODEL, (...f) => kit.enqueue(...f), checks);
  aiSdkCells(() => gw, MODEL, (...f) => kit.enqueue(...f), checks);

  describe('afterwards', () => {
    it('got one token for every call (never per request) from the client-credentials grant', () => {
      expect(entra.refusals).to.deep.equal([]);
      expect(entra.unknown, 'requests the fake authority does not serve').to.deep.equal([]);
      expect(entra.issued).to.equal(1);
    });
  });
});

describe('e2e cloud: Azure OpenAI Entra token expiry', function () {
  this.timeout(60_000);

  it('refreshes a token that expires mid-run without a failed call', async () => {
    const entra = await startEntraServer(APP, 3);
    const kit = await startKitUpstream('openai', 'sk-kit-azure-0002', { dialects: ['openai-chat'] });
    const front = await startAzureFront({ acceptsToken: (t) => entra.accepts(t), openai: kit });
    const gw = await spawnEntraGateway(entra, front);
    try {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
      const started = Date.now();
      let calls = 0;
      while (Date.now() - started < 7000) {
        kit.enqueue({ fixture: 'text' });
        const out = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'What is the capital of France?' }] });
        expect(out.choices[0]!.message.content).to.equal(ANSWERS.text);
        calls++;
        await new Promise((r) => setTimeout(r, 150));
      }
      expect(calls).to.be.greaterThan(10);
      expect(entra.issued, 'tokens of 3 s over 7 s: refreshed, not fetched per call').to.be.within(2, 5);
      expect(front.unauthenticated, 'no call carried an expired token').to.equal(0);
    } finally {
      await gw.close();
      await Promise.all([front.close(), kit.close(), entra.close()]);
    }
  });

  it('answers 502 upstream_auth_error naming the source when Entra refuses the secret', async () => {
    const entra = await startEntraServer(APP);
    const kit = await startKitUpstream('openai', 'sk-kit-azure-0003', { dialects: ['openai-chat'] });
    const front = await startAzureFront({ acceptsToken: (t) => entra.accepts(t), openai: kit });
    const gw = await spawnEntraGateway(entra, front, { AZURE_CLIENT_SECRET: 'a-wrong-secret-value-42' });
    try {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).to.equal(502);
      const text = await res.text();
      const body = JSON.parse(text) as { error: { code: string; message: string } };
      expect(body.error.code).to.equal('upstream_auth_error');
      expect(body.error.message).to.include("Provider 'azure'").and.include('Entra service principal (AZURE_CLIENT_SECRET)');
      expect(text).to.not.include('a-wrong-secret-value-42');
      expect(front.calls).to.have.length(0);
    } finally {
      await gw.close();
      await Promise.all([front.close(), kit.close(), entra.close()]);
    }
  });
});

describe('e2e cloud: Azure OpenAI with an api-key', function () {
  this.timeout(60_000);
  let kit: KitUpstream;
  let front: AzureFront;
  let gw: TestGateway;
  const post = (path: string, body: unknown) => fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
  before(async () => {
    kit = await startKitUpstream('openai', 'sk-kit-azure-0004', { dialects: ['openai-chat'] });
    front = await startAzureFront({ apiKey: AZURE_KEY, openai: kit });
    gw = await startGateway({ env: { AZURE_OPENAI_ENDPOINT: front.url, AZURE_OPENAI_API_KEY: AZURE_KEY } });
  });
  after(async () => {
    await gw?.close();
    await Promise.all([front?.close(), kit?.close()]);
  });
  beforeEach(() => {
    front.reset();
    kit.reset();
  });

  it('sends the key as api-key (no Authorization) and passes the filter annotations through', async () => {
    kit.enqueue({ fixture: 'text' });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    const out = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'What is the capital of France?' }] });
    expect(out.choices[0]!.message.content).to.equal(ANSWERS.text);
    expect(out.model).to.equal(MODEL);
    const raw = out as unknown as { prompt_filter_results: unknown; choices: Array<{ content_filter_results: unknown }> };
    expect(raw.prompt_filter_results).to.deep.equal(PROMPT_FILTER_RESULTS);
    expect(raw.choices[0]!.content_filter_results).to.deep.equal(CHOICE_FILTER_RESULTS);
    expectClean(front, kit, 'api-key');
  });

  it('streams through the annotation-only first chunk (choices: [])', async () => {
    kit.enqueue({ fixture: 'text' });
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'What is the capital of France?' }] });
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    const first = chunks[0] as unknown as { choices: unknown[]; prompt_filter_results?: unknown };
    expect(first.choices).to.deep.equal([]);
    expect(first.prompt_filter_results).to.deep.equal(PROMPT_FILTER_RESULTS);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).to.equal(ANSWERS.text);
    expect(chunks.at(-1)!.usage?.completion_tokens).to.be.greaterThan(0);
    // Translated into another surface, the annotation chunk starts nothing.
    kit.enqueue({ fixture: 'text' });
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
    const message = await anthropic.messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'What is the capital of France?' }] }).finalMessage();
    expect(message.content.map((b) => (b.type === 'text' ? b.text : '')).join('')).to.equal(ANSWERS.text);
    expect(message.model).to.equal(MODEL);
    expectClean(front, kit, 'api-key');
  });

  for (const streamed of [false, true]) {
    const mode = streamed ? 'streamed' : 'plain';
    it(`maps finish_reason content_filter to every surface (${mode})`, async () => {
      const messages = [{ role: 'user' as const, content: 'Write the FILTERED ANSWER please.' }];
      const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
      const chat = streamed
        ? await openai.chat.completions.stream({ model: MODEL, messages }).finalChatCompletion()
        : await openai.chat.completions.create({ model: MODEL, messages });
      expect(chat.choices[0]!.finish_reason).to.equal('content_filter');
      expect(chat.choices[0]!.message.content).to.equal('I can');

      const anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
      const params = { model: MODEL, max_tokens: 100, messages };
      const message = streamed ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
      expect(message.stop_reason).to.equal('refusal');

      const params2 = { model: MODEL, input: 'Write the FILTERED ANSWER please.' };
      const response = streamed ? await openai.responses.stream(params2).finalResponse() : await openai.responses.create(params2);
      expect(response.status).to.equal('incomplete');
      expect(response.incomplete_details?.reason).to.equal('content_filter');
      expect(front.violations).to.deep.equal([]);
    });
  }

  it('keeps the content-filter 400 code on every surface', async () => {
    const chat = await post('/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'a BLOCKED PROMPT' }] });
    expect(chat.status).to.equal(400);
    const chatBody = await chat.json() as { error: { code: string; message: string } };
    expect(chatBody.error.code).to.equal('content_filter');
    expect(chatBody.error.message).to.include('content management policy');
    const responses = await post('/v1/responses', { model: MODEL, input: 'a BLOCKED PROMPT' });
    expect(responses.status).to.equal(400);
    expect(((await responses.json()) as { error: { code: string } }).error.code).to.equal('content_filter');
    const messages = await post('/v1/messages', { model: MODEL, max_tokens: 50, messages: [{ role: 'user', content: 'a BLOCKED PROMPT' }] });
    expect(messages.status).to.equal(400);
    const m = await messages.json() as { type: string; error: { type: string; message: string } };
    expect(m.error.type).to.equal('invalid_request_error');
    expect(m.error.message).to.include('content management policy');
  });

  it('embeds through a deployment route with the same credentials', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    const res = await client.embeddings.create({ model: 'azure/text-embedding-3-small', input: ['one', 'two'], dimensions: 2, encoding_format: 'float' });
    expect(res.data.map((d) => d.embedding)).to.deep.equal([[0.1, 0.11], [0.2, 0.21]]);
    expect(res.model).to.equal('azure/text-embedding-3-small');
    const call = front.calls.at(-1)!;
    expect(call.path).to.equal('/openai/deployments/text-embedding-3-small/embeddings');
    expect(call.query['api-version']).to.equal('2024-10-21');
    expect(call.body).to.deep.equal({ input: ['one', 'two'], dimensions: 2, encoding_format: 'float' });
    expectClean(front, kit, 'api-key');
  });

  it('answers 502 upstream_auth_error when Azure refuses the key', async () => {
    const wrong = await startGateway({ env: { AZURE_OPENAI_ENDPOINT: front.url, AZURE_OPENAI_API_KEY: 'not-the-resource-key-99' } });
    try {
      const res = await fetch(`${wrong.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${wrong.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).to.equal(502);
      const text = await res.text();
      expect((JSON.parse(text) as { error: { code: string } }).error.code).to.equal('upstream_auth_error');
      expect(text).to.not.include('not-the-resource-key-99');
    } finally {
      await wrong.close();
    }
  });

  it('lists Azure models as not configured without endpoint or credentials', async () => {
    const home = mkdtempSync(join(tmpdir(), 'gw-nohome-'));
    const bare = await startGateway({ env: { AZURE_OPENAI_ENDPOINT: front.url, HOME: home } });
    try {
      const list = await (await fetch(`${bare.url}/v1/models`, { headers: { authorization: `Bearer ${bare.key}` } })).json() as { data: Array<{ id: string }> };
      expect(list.data.map((m) => m.id).filter((id) => id.startsWith('azure/'))).to.deep.equal([]);
      const res = await fetch(`${bare.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bare.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).to.equal(400);
      const body = await res.json() as { error: { code: string; message: string } };
      expect(body.error.code).to.equal('provider_not_configured');
      expect(body.error.message).to.include('AZURE_OPENAI_API_KEY').and.include('AZURE_TENANT_ID');
    } finally {
      await bare.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
