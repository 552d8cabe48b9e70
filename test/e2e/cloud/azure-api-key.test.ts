/**
 * Azure OpenAI with the resource's `api-key` end to end (issue 29): the key as `api-key` (never
 * Authorization), content filter annotations and the annotation-only first stream chunk passed
 * through, `finish_reason: content_filter` on every surface, the content-filter 400's code,
 * embeddings through a deployment route, a refused key, and not configured without credentials.
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
import { CHOICE_FILTER_RESULTS, PROMPT_FILTER_RESULTS, startAzureFront, type AzureFront } from './support/azure-front.js';
import { AZURE_KEY, expectClean, MODEL } from './support/azure-rig.js';

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
