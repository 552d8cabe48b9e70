/**
 * What the gateway forwards: parameters a model does not list are dropped and named in
 * `x-gateway-dropped-params`, listed ones arrive under the upstream's own names, gateway-only
 * fields never leave, the upstream model name and the provider key replace the client's, and the
 * Anthropic upstream always gets the `anthropic-version` of gateway.yaml.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { FAKE_KEYS } from '../../kit/text-deployments.js';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { makeOpenAiClient } from './support/chat-client.js';
import { cell, useTextGateway } from './support/harness.js';
import { makeAnthropicClient } from './support/messages-client.js';
import { DIALECT_MODELS, TEXT_QUESTION } from './support/scenario.js';
import { upstreamViews } from './support/upstream-views.js';

type Obj = Record<string, unknown>;
const droppedOf = (headers: Headers): string[] => (headers.get('x-gateway-dropped-params') ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '').sort();

/**
 * Clients of the 2023-06-01 Messages API still send temperature / top_k, which the 1.x SDK's
 * types (API 2026-10-21) no longer declare; the SDK sends them all the same.
 */
function withSampling(params: Obj): MessageCreateParamsNonStreaming {
  return params as unknown as MessageCreateParamsNonStreaming;
}

/** The anthropic-version configured for the `anthropic` provider in the config the tests run on. */
function configuredAnthropicVersion(): string {
  const file = process.env.GATEWAY_TEST_CONFIG ?? resolve(process.cwd(), 'gateway.yaml');
  const config = parse(readFileSync(file, 'utf8')) as { providers: Record<string, { options?: { anthropic_version?: string } }> };
  return config.providers.anthropic!.options?.anthropic_version ?? '2023-06-01';
}

describe('parameters and headers sent upstream', () => {
  const h = useTextGateway();

  describe('parameters a model does not support', () => {
    cell(h, 'chat client -> Claude: sampling parameters are dropped and named in x-gateway-dropped-params', async () => {
      h.fakes.anthropic.enqueue({ fixture: 'text' });
      const { response } = await makeOpenAiClient(h.gw).chat.completions.create({
        model: 'anthropic/claude-sonnet-5-5', messages: [{ role: 'user', content: TEXT_QUESTION }], temperature: 0.3, top_p: 0.9, seed: 7, presence_penalty: 0.5, max_completion_tokens: 300,
      }).withResponse();
      expect(droppedOf(response.headers)).to.deep.equal(['presence_penalty', 'seed', 'temperature', 'top_p']);
      const body = h.fakes.anthropic.last().body;
      for (const field of ['temperature', 'top_p', 'top_k', 'seed', 'presence_penalty']) expect(body, `${field} never reaches the upstream`).to.not.have.property(field);
      expect(body.max_tokens, 'a listed parameter under the upstream name').to.equal(300);
    });

    cell(h, 'messages client -> Gemini: temperature and top_k are dropped, stop_sequences kept', async () => {
      h.fakes.gemini.enqueue({ fixture: 'text' });
      const { response } = await makeAnthropicClient(h.gw).messages.create(withSampling({
        model: 'google/gemini-3.8-flash', max_tokens: 300, messages: [{ role: 'user', content: TEXT_QUESTION }], temperature: 0.5, top_k: 40, stop_sequences: ['END'],
      })).withResponse();
      expect(droppedOf(response.headers)).to.deep.equal(['temperature', 'top_k']);
      const config = h.fakes.gemini.last().body.generationConfig as Obj;
      expect(config).to.not.have.property('temperature');
      expect(config).to.not.have.property('topK');
      expect(config.stopSequences).to.deep.equal(['END']);
      expect(config.maxOutputTokens).to.equal(300);
    });

    cell(h, 'chat client -> gpt-4.1-mini: supported sampling parameters pass, nothing is dropped', async () => {
      h.fakes.chat.enqueue({ fixture: 'text' });
      const { response } = await makeOpenAiClient(h.gw).chat.completions.create({
        model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: TEXT_QUESTION }], temperature: 0.3, top_p: 0.9, stop: ['END'],
      }).withResponse();
      expect(response.headers.get('x-gateway-dropped-params')).to.equal(null);
      expect(h.fakes.chat.last().body).to.include({ temperature: 0.3, top_p: 0.9 });
      expect(h.fakes.chat.last().body.stop).to.deep.equal(['END']);
    });

    cell(h, 'messages client -> gpt-4.1-mini: temperature and stop_sequences arrive under the chat names', async () => {
      h.fakes.chat.enqueue({ fixture: 'text' });
      await makeAnthropicClient(h.gw).messages.create(withSampling({ model: 'openai/gpt-4.1-mini', max_tokens: 200, messages: [{ role: 'user', content: TEXT_QUESTION }], temperature: 0.4, stop_sequences: ['END'] }));
      const body = h.fakes.chat.last().body;
      expect(body.temperature).to.equal(0.4);
      expect(body.stop).to.deep.equal(['END']);
      expect(body.max_completion_tokens ?? body.max_tokens).to.equal(200);
    });
  });

  describe('gateway-only fields, model name and key', () => {
    for (const { dialect, model } of DIALECT_MODELS) {
      cell(h, `responses client -> ${dialect}: max_budget_usd stays at the gateway`, async () => {
        h.fakes.byDialect[dialect]!.enqueue({ fixture: 'text' });
        await makeOpenAiClient(h.gw).responses.create({ model, input: TEXT_QUESTION, max_budget_usd: 5 } as Parameters<ReturnType<typeof makeOpenAiClient>['responses']['create']>[0]);
        expect(JSON.stringify(h.fakes.byDialect[dialect]!.last().body)).to.not.include('max_budget_usd');
      });
    }

    for (const { dialect, model, upstream } of DIALECT_MODELS) {
      cell(h, `chat client -> ${dialect}: the upstream model name and the provider key replace the client's`, async () => {
        const fake = h.fakes.byDialect[dialect]!;
        fake.enqueue({ fixture: 'text' });
        await makeOpenAiClient(h.gw).chat.completions.create({ model, messages: [{ role: 'user', content: TEXT_QUESTION }] });
        const req = fake.last();
        expect(upstreamViews[dialect]!.model(req)).to.equal(upstream);
        const auth = { 'openai-chat': req.headers.authorization, 'openai-responses': req.headers.authorization, 'anthropic-messages': req.headers['x-api-key'], gemini: req.headers['x-goog-api-key'] }[dialect];
        const key = { 'openai-chat': `Bearer ${FAKE_KEYS.openai}`, 'openai-responses': `Bearer ${FAKE_KEYS.openai}`, 'anthropic-messages': FAKE_KEYS.anthropic, gemini: FAKE_KEYS.gemini }[dialect];
        expect(auth).to.equal(key);
        expect(JSON.stringify(req.headers), 'the gateway key never reaches a provider').to.not.include(h.gw.key);
      });
    }
  });

  describe('anthropic-version', () => {
    const expected = configuredAnthropicVersion();

    cell(h, `the official SDK's version header is replaced by gateway.yaml's (${expected})`, async () => {
      h.fakes.anthropic.enqueue({ fixture: 'text' });
      await makeAnthropicClient(h.gw).messages.create({ model: 'anthropic/claude-sonnet-5-5', max_tokens: 100, messages: [{ role: 'user', content: TEXT_QUESTION }] });
      expect(h.fakes.anthropic.last().headers['anthropic-version']).to.equal(expected);
    });

    for (const clientVersion of ['2099-12-31', '2023-01-01']) {
      cell(h, `a client sending anthropic-version ${clientVersion} still reaches the upstream with ${expected}`, async () => {
        h.fakes.anthropic.enqueue({ fixture: 'text' });
        const res = await fetch(`${h.gw.url}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': h.gw.key, 'anthropic-version': clientVersion },
          body: JSON.stringify({ model: 'anthropic/claude-sonnet-5-5', max_tokens: 100, messages: [{ role: 'user', content: TEXT_QUESTION }] }),
        });
        expect(res.status).to.equal(200);
        expect(h.fakes.anthropic.last().headers['anthropic-version']).to.equal(expected);
      });
    }

    cell(h, `a chat client (no version of its own) reaches Claude with ${expected}`, async () => {
      h.fakes.anthropic.enqueue({ fixture: 'text', });
      await makeOpenAiClient(h.gw).chat.completions.create({ model: 'anthropic/claude-sonnet-5-5', messages: [{ role: 'user', content: TEXT_QUESTION }] });
      expect(h.fakes.anthropic.last().headers['anthropic-version']).to.equal(expected);
    });
  });
});
