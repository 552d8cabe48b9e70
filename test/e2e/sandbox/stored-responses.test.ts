/**
 * Stored responses through the official `openai` SDK (issue 10 item 2): `previous_response_id`
 * and `item_reference` continue a conversation, per key; unknown references are a 400 naming them.
 */
import { expect } from 'chai';
import OpenAI from 'openai';
import type { Response, ResponseFunctionToolCall } from 'openai/resources/responses/responses';
import type { TestGateway } from '../../helpers/gateway.js';
import { deletePrefix, SHARED_REDIS, uniquePrefix } from '../../store/support/redis.js';
import { bootSandbox, KEY_B, openAiClient, useSandbox } from './helpers.js';

const MODEL = 'sandbox/echo-1';
const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

function callOf(response: Response): ResponseFunctionToolCall {
  const call = response.output.find((item): item is ResponseFunctionToolCall => item.type === 'function_call');
  if (!call) throw new Error(`no function_call in ${JSON.stringify(response.output)}`);
  return call;
}

describe('e2e sandbox: stored responses (previous_response_id, item_reference)', () => {
  const sb = useSandbox(openAiClient);

  it('continues a tool loop with previous_response_id', async () => {
    const first = await sb.client.responses.create({ model: MODEL, input: 'What is the weather in Paris? use get_weather', tools: [WEATHER] });
    expect((first as unknown as { store: boolean }).store).to.equal(true);
    const call = callOf(first);
    const second = await sb.client.responses.create({
      model: MODEL, previous_response_id: first.id, tools: [WEATHER],
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temp_c":18}' }],
    });
    expect(second.previous_response_id).to.equal(first.id);
    expect(second.output_text).to.equal('Tool get_weather returned: {"temp_c":18}');
  });

  it('chains several turns: each previous response carries the whole conversation', async () => {
    const one = await sb.client.responses.create({ model: MODEL, input: 'first words' });
    const two = await sb.client.responses.create({ model: MODEL, previous_response_id: one.id, input: 'second words' });
    const three = await sb.client.responses.create({ model: MODEL, previous_response_id: two.id, input: 'third words' });
    expect(three.output_text).to.equal('Echo: third words');
    // The conversation grows each turn, so the prompt does too.
    expect(three.usage!.input_tokens).to.be.greaterThan(two.usage!.input_tokens).and.greaterThan(one.usage!.input_tokens);
  });

  it('keeps chat-style messages of a stored turn (SPEC 4.4 messages beside input)', async () => {
    const first = await sb.client.responses.create({ model: MODEL, messages: [{ role: 'user', content: 'via messages' }] } as unknown as Parameters<typeof sb.client.responses.create>[0] & { stream?: false });
    const withoutMessages = await sb.client.responses.create({ model: MODEL, input: [{ role: 'assistant', content: first.output_text }, { role: 'user', content: 'next' }] });
    const next = await sb.client.responses.create({ model: MODEL, previous_response_id: first.id, input: 'next' });
    expect(next.output_text).to.equal('Echo: next');
    expect(next.usage!.input_tokens, 'the first turn\'s user message is part of the prompt').to.be.greaterThan(withoutMessages.usage!.input_tokens);
  });

  it('resolves item_reference input items to the stored items', async () => {
    const first = await sb.client.responses.create({ model: MODEL, input: 'Weather in Oslo? use get_weather', tools: [WEATHER] });
    const call = callOf(first);
    const second = await sb.client.responses.create({
      model: MODEL, tools: [WEATHER],
      input: [
        { role: 'user', content: 'Weather in Oslo? use get_weather' },
        { type: 'item_reference', id: call.id! },
        { type: 'function_call_output', call_id: call.call_id, output: 'cold' },
      ],
    });
    expect(second.output_text).to.equal('Tool get_weather returned: cold');
  });

  it('stores streamed responses too', async () => {
    const stream = await sb.client.responses.create({ model: MODEL, input: 'streamed turn', stream: true });
    let id = '';
    for await (const event of stream) if (event.type === 'response.completed') id = event.response.id;
    expect(id).to.match(/^resp_/);
    const next = await sb.client.responses.create({ model: MODEL, previous_response_id: id, input: 'after the stream' });
    expect(next.output_text).to.equal('Echo: after the stream');
    expect(next.previous_response_id).to.equal(id);
  });

  it('never lets another key read a response (400 naming the id)', async () => {
    const first = await sb.client.responses.create({ model: MODEL, input: 'private to key A' });
    const other = openAiClient(sb.gw, KEY_B);
    const err = await other.responses.create({ model: MODEL, previous_response_id: first.id, input: 'peek' }).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(OpenAI.BadRequestError);
    const e = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.code).to.equal('previous_response_not_found');
    expect(e.message).to.include(first.id);
  });

  it('answers 400 naming an unknown item_reference', async () => {
    const err = await sb.client.responses.create({ model: MODEL, input: [{ type: 'item_reference', id: 'msg_does_not_exist' }, { role: 'user', content: 'hi' }] })
      .then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).to.equal('item_not_found');
    expect((err as Error).message).to.include('msg_does_not_exist');
  });

  it('keeps nothing for store: false', async () => {
    const first = await sb.client.responses.create({ model: MODEL, input: 'do not keep this', store: false });
    const err = await sb.client.responses.create({ model: MODEL, previous_response_id: first.id, input: 'again' }).then(() => undefined, (e: unknown) => e);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).code).to.equal('previous_response_not_found');
  });

  it('GET /v1/responses/{id} retrieves a stored response for its key only', async () => {
    const first = await sb.client.responses.create({ model: MODEL, input: 'remember me' });
    const again = await sb.client.responses.retrieve(first.id);
    expect(again.id).to.equal(first.id);
    expect(again.output_text).to.equal('Echo: remember me');
    const err = await openAiClient(sb.gw, KEY_B).responses.retrieve(first.id).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(OpenAI.NotFoundError);
  });
});

describe('e2e sandbox: stored responses shared through Redis (127.0.0.1:6379)', () => {
  const prefix = uniquePrefix('responses-e2e');
  const gateways: TestGateway[] = [];
  before(async () => {
    const env = { GATEWAY_STORE_URL: `${SHARED_REDIS}?prefix=${encodeURIComponent(prefix)}`, GATEWAY_REALTIME_SECRET: 'test-realtime-secret' };
    gateways.push(await bootSandbox(env), await bootSandbox(env));
  });
  after(async () => {
    await Promise.all(gateways.map((g) => g.close()));
    await deletePrefix(SHARED_REDIS, prefix);
  });

  it('a turn answered by one instance is continued on another', async () => {
    const [a, b] = gateways as [TestGateway, TestGateway];
    const first = await openAiClient(a).responses.create({ model: MODEL, input: 'Weather in Graz? use get_weather', tools: [WEATHER] });
    const call = callOf(first);
    const second = await openAiClient(b).responses.create({
      model: MODEL, previous_response_id: first.id, tools: [WEATHER],
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'mild' }],
    });
    expect(second.output_text).to.equal('Tool get_weather returned: mild');
    expect((await openAiClient(b).responses.retrieve(first.id)).id).to.equal(first.id);
  });
});
