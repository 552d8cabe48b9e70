/**
 * One capability, many spellings (issue 10 item 1): a Responses client's `text.format` is the
 * same capability as chat `response_format`, so a model whose catalog entry lists only
 * `response_format` must still get the schema, in each upstream dialect's own wire form.
 */
import { expect } from 'chai';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { makeOpenAiClient } from './support/chat-client.js';
import { cell, useTextGateway } from './support/harness.js';
import { makeAnthropicClient } from './support/messages-client.js';
import { TEXT_QUESTION } from './support/scenario.js';

type Obj = Record<string, unknown>;

const SCHEMA = {
  type: 'object',
  properties: { city: { type: 'string' }, country: { type: 'string' } },
  required: ['city', 'country'],
  additionalProperties: false,
};
const TEXT_FORMAT = { format: { type: 'json_schema' as const, name: 'place', schema: SCHEMA, strict: true } };

describe('structured output reaches every dialect under its own name', () => {
  const h = useTextGateway();

  cell(h, 'responses client text.format -> OpenAI chat upstream: response_format.json_schema', async () => {
    h.fakes.chat.enqueue({ fixture: 'text' });
    const { response } = await makeOpenAiClient(h.gw).responses.create({ model: 'openai/gpt-4.1-mini', input: TEXT_QUESTION, text: TEXT_FORMAT }).withResponse();
    expect(response.headers.get('x-gateway-dropped-params'), 'text is response_format under another name').to.equal(null);
    const body = h.fakes.chat.last().body;
    expect(body.response_format).to.deep.equal({ type: 'json_schema', json_schema: { name: 'place', schema: SCHEMA, strict: true } });
  });

  cell(h, 'responses client text.format -> Anthropic upstream: output_config.format', async () => {
    h.fakes.anthropic.enqueue({ fixture: 'text' });
    const { response } = await makeOpenAiClient(h.gw).responses.create({ model: 'anthropic/claude-sonnet-5-5', input: TEXT_QUESTION, text: TEXT_FORMAT }).withResponse();
    expect(response.headers.get('x-gateway-dropped-params') ?? '').to.not.include('text');
    const body = h.fakes.anthropic.last().body;
    expect((body.output_config as Obj).format).to.deep.equal({ type: 'json_schema', schema: SCHEMA });
  });

  cell(h, 'responses client text.format -> Gemini upstream: responseMimeType + responseJsonSchema', async () => {
    h.fakes.gemini.enqueue({ fixture: 'text' });
    await makeOpenAiClient(h.gw).responses.create({ model: 'google/gemini-3.8-flash', input: TEXT_QUESTION, text: TEXT_FORMAT });
    const config = h.fakes.gemini.last().body.generationConfig as Obj;
    expect(config.responseMimeType).to.equal('application/json');
    expect(config.responseJsonSchema).to.deep.equal(SCHEMA);
  });

  cell(h, 'chat client response_format -> Responses upstream: text.format', async () => {
    h.fakes.responses.enqueue({ fixture: 'text' });
    await makeOpenAiClient(h.gw).chat.completions.create({
      model: 'openai-responses/gpt-6.2-sol',
      messages: [{ role: 'user', content: TEXT_QUESTION }],
      response_format: { type: 'json_schema', json_schema: { name: 'place', schema: SCHEMA, strict: true } },
    });
    expect(h.fakes.responses.last().body.text).to.deep.equal(TEXT_FORMAT);
  });

  for (const [field, value] of [['output_config', { format: { type: 'json_schema', schema: SCHEMA } }], ['output_format', { type: 'json_schema', schema: SCHEMA }]] as const) {
    cell(h, `messages client ${field} -> OpenAI chat upstream: response_format.json_schema`, async () => {
      h.fakes.chat.enqueue({ fixture: 'text' });
      await makeAnthropicClient(h.gw).messages.create({
        model: 'openai/gpt-4.1-mini', max_tokens: 200, messages: [{ role: 'user', content: TEXT_QUESTION }], [field]: value,
      } as unknown as MessageCreateParamsNonStreaming);
      expect(h.fakes.chat.last().body.response_format).to.deep.equal({ type: 'json_schema', json_schema: { name: 'response', schema: SCHEMA } });
    });
  }

  it('discovery matches a capability by any of its spellings', async () => {
    const res = await fetch(`${h.gw.url}/v1/models?supported_parameters=text,max_output_tokens`, { headers: { authorization: `Bearer ${h.gw.key}` } });
    const ids = ((await res.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
    expect(ids, 'models list response_format, which text spells').to.include.members(['openai/gpt-4.1-mini', 'anthropic/claude-sonnet-5-5']);
    expect(ids).to.not.include('openai/text-embedding-3-small');
  });
});
