/**
 * Claude on Bedrock through InvokeModel (`type: anthropic-messages`, `platform: bedrock`): a
 * `/v1/messages` client's body reaches Bedrock nearly as sent (no `model`, no `stream`,
 * `anthropic_version: bedrock-2023-05-31`), its stream's base64 chunks come back as Anthropic's
 * own events; chat clients and the AI SDK are translated as for Anthropic.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { expect } from 'chai';
import OpenAI from 'openai';
import { z } from 'zod';
import { useBedrockGateway } from './support.js';

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const MODEL = 'bedrock-claude/claude-sonnet-5-5';
const UPSTREAM = 'us.anthropic.claude-sonnet-5-5-v1:0';

describe('e2e bedrock: Claude through InvokeModel', () => {
  const h = useBedrockGateway();
  const anthropic = () => new Anthropic({ apiKey: h.gw.key, baseURL: h.gw.url, maxRetries: 0 });

  it('messages: the client body goes to /invoke nearly as sent, the answer comes back as Claude wrote it', async () => {
    const message = await anthropic().messages.create({
      model: MODEL, max_tokens: 300, system: 'Be brief.', stop_sequences: ['END'],
      messages: [{ role: 'user', content: 'hi' }],
      metadata: { user_id: 'u-1' },
    });
    expect(message.content).to.deep.equal([{ type: 'text', text: `Hello from ${UPSTREAM}.` }]);
    expect(message.model).to.equal(MODEL);
    expect(message.usage).to.include({ input_tokens: 21, output_tokens: 9, cache_read_input_tokens: 4 });
    const sent = h.fake.requests[0]!;
    expect(sent.operation).to.equal('invoke');
    expect(sent.modelId).to.equal(UPSTREAM);
    expect(sent.body).to.deep.equal({
      anthropic_version: 'bedrock-2023-05-31', max_tokens: 300, system: 'Be brief.', stop_sequences: ['END'],
      messages: [{ role: 'user', content: 'hi' }], metadata: { user_id: 'u-1' },
    });
    expect(sent.headers).to.not.have.property('x-api-key');
  });

  it('messages stream with thinking and tools: base64 chunks unwrapped to Anthropic events', async () => {
    const stream = anthropic().messages.stream({
      model: MODEL, max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 1024 },
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
      messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    });
    const events: string[] = [];
    stream.on('streamEvent', (e) => events.push(e.type));
    const message = await stream.finalMessage();
    expect(message.content.map((b) => b.type)).to.deep.equal(['thinking', 'tool_use']);
    expect(message.content[1]).to.deep.include({ name: 'get_weather', input: { city: 'Oslo' } });
    expect(message.stop_reason).to.equal('tool_use');
    expect(events[0]).to.equal('message_start');
    expect(events.at(-1)).to.equal('message_stop');
    const sent = h.fake.requests[0]!;
    expect(sent.operation).to.equal('invoke-with-response-stream');
    expect(sent.body).to.not.have.property('stream');
    expect(sent.body).to.not.have.property('model');
    expect(sent.body.anthropic_version).to.equal('bedrock-2023-05-31');
  });

  it('chat completions are translated to Messages and sent to /invoke', async () => {
    const client = new OpenAI({ apiKey: h.gw.key, baseURL: `${h.gw.url}/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]!.message.content).to.equal(`Hello from ${UPSTREAM}.`);
    expect(h.fake.requests[0]!.body).to.include({ anthropic_version: 'bedrock-2023-05-31' });
    expect(h.fake.requests[0]!.body).to.not.have.property('model');
  });

  it('the AI SDK runs a streamed tool loop through chat completions', async () => {
    const model = createOpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: h.gw.key }).chat(MODEL);
    const result = streamText({
      model, maxRetries: 0, stopWhen: stepCountIs(3), prompt: 'Weather in Oslo?',
      tools: { get_weather: tool({ description: 'Weather by city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, tempC: 4 }) }) },
    });
    let text = '';
    for await (const delta of result.textStream) text += delta;
    expect(text).to.equal('It is 4 degrees in Oslo.');
    expect((await result.steps).length).to.equal(2);
    const plain = await generateText({ model, prompt: 'hi', maxRetries: 0 });
    expect(plain.text).to.equal(`Hello from ${UPSTREAM}.`);
  });

  it('an exception mid-stream ends a Messages stream with an Anthropic error event', async () => {
    h.fake.failNextStream('modelStreamErrorException', 'The model stopped.', 3);
    let failure: unknown;
    try {
      await anthropic().messages.stream({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
    } catch (e) {
      failure = e;
    }
    expect(failure).to.be.instanceOf(Anthropic.APIError);
    expect(String(failure)).to.match(/The model stopped/);
  });
});
