/**
 * LlamaIndex TS (`@llamaindex/openai` OpenAI LLM with a base URL) used as its docs show, against
 * the gateway: chat, streamed chat, structured output from a zod `responseFormat`, and a tool
 * call answered with a tool result. Assertions are on LlamaIndex's parsed messages.
 */
import type { ChatMessage, ToolCallLLMMessageOptions } from '@llamaindex/core/llms';
import { tool } from '@llamaindex/core/tools';
import { OpenAI } from '@llamaindex/openai';
import { expect } from 'chai';
import { z } from 'zod';
import { CLIENT_KEY, SANDBOX_MODEL, useSandboxGateway } from './gateway.js';

const PLACE = z.object({ city: z.string(), population: z.number().int(), coastal: z.boolean() });

describe('e2e clients: LlamaIndex TS', () => {
  const h = useSandboxGateway();
  const makeLlm = () => new OpenAI({ model: SANDBOX_MODEL, apiKey: CLIENT_KEY, baseURL: `${h.gw.url}/v1`, maxRetries: 0 });
  const getWeather = tool({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: z.object({ city: z.string() }),
    execute: ({ city }) => JSON.stringify({ city, temperature_c: 12 }),
  });

  it('chat returns the assistant message', async () => {
    const response = await makeLlm().chat({ messages: [{ role: 'user', content: 'hello llamaindex' }] });
    expect(response.message.role).to.equal('assistant');
    expect(response.message.content).to.equal('Echo: hello llamaindex');
  });

  it('streamed chat yields deltas that add up to the answer', async () => {
    const stream = await makeLlm().chat({ messages: [{ role: 'user', content: 'streaming through llamaindex' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.delta;
    expect(text).to.equal('Echo: streaming through llamaindex');
  });

  it('responseFormat (zod) returns JSON that fits the schema', async () => {
    const response = await makeLlm().chat({ messages: [{ role: 'user', content: 'Describe Valencia.' }], responseFormat: PLACE });
    const parsed = PLACE.safeParse(JSON.parse(String(response.message.content)));
    expect(parsed.success, String(response.message.content)).to.equal(true);
  });

  it('calls a tool and answers from the tool result', async () => {
    const llm = makeLlm();
    const messages: ChatMessage<ToolCallLLMMessageOptions>[] = [{ role: 'user', content: 'Weather in Bilbao? use get_weather' }];
    const first = await llm.chat({ messages, tools: [getWeather] });
    const calls = first.message.options && 'toolCall' in first.message.options ? first.message.options.toolCall : [];
    expect(calls.map((c) => c.name)).to.deep.equal(['get_weather']);
    const call = calls[0]!;
    const input = typeof call.input === 'string' ? (JSON.parse(call.input) as { city: string }) : (call.input as { city: string });
    expect(input).to.deep.equal({ city: 'Bilbao' });
    const result = await getWeather.call(input);
    const second = await llm.chat({
      tools: [getWeather],
      messages: [...messages, first.message, { role: 'user', content: String(result), options: { toolResult: { id: call.id, result: String(result), isError: false } } }],
    });
    expect(second.message.content).to.equal('Tool get_weather returned: {"city":"Bilbao","temperature_c":12}');
  });
});
