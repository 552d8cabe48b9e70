/**
 * LangChain JS (`@langchain/openai` ChatOpenAI, `@langchain/anthropic` ChatAnthropic) used as its
 * docs show, against the gateway: invoke, stream, withStructuredOutput (zod) and bindTools with a
 * tool round trip. Assertions are on the parsed messages.
 */
import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { expect } from 'chai';
import { z } from 'zod';
import { CLIENT_KEY, SANDBOX_MODEL, useSandboxGateway } from './gateway.js';

const PLACE = z.object({ city: z.string(), population: z.number().int(), coastal: z.boolean() });
const getWeather = tool(async ({ city }: { city: string }) => JSON.stringify({ city, temperature_c: 21 }), {
  name: 'get_weather',
  description: 'Current weather for a city',
  schema: z.object({ city: z.string() }),
});

describe('e2e clients: LangChain JS', () => {
  const h = useSandboxGateway();
  const models: Array<[string, () => BaseChatModel]> = [
    ['ChatOpenAI (chat completions)', () => new ChatOpenAI({ model: SANDBOX_MODEL, apiKey: CLIENT_KEY, maxRetries: 0, configuration: { baseURL: `${h.gw.url}/v1` } })],
    ['ChatOpenAI (useResponsesApi)', () => new ChatOpenAI({ model: SANDBOX_MODEL, apiKey: CLIENT_KEY, maxRetries: 0, useResponsesApi: true, configuration: { baseURL: `${h.gw.url}/v1` } })],
    ['ChatAnthropic', () => new ChatAnthropic({ model: SANDBOX_MODEL, apiKey: CLIENT_KEY, maxRetries: 0, anthropicApiUrl: h.gw.url })],
  ];

  for (const [name, make] of models) {
    describe(name, () => {
      it('invoke returns the answer with usage metadata', async () => {
        const answer = await make().invoke([new HumanMessage('hello langchain')]);
        expect(answer.text).to.equal('Echo: hello langchain');
        expect((answer as AIMessage).usage_metadata?.output_tokens).to.be.greaterThan(0);
      });

      it('stream yields chunks that add up to the answer', async () => {
        let text = '';
        let chunks = 0;
        for await (const chunk of await make().stream('streaming with langchain')) {
          text += chunk.text;
          chunks++;
        }
        expect(chunks).to.be.greaterThan(1);
        expect(text).to.equal('Echo: streaming with langchain');
      });

      it('withStructuredOutput returns an object that fits the zod schema', async () => {
        const structured = make().withStructuredOutput(PLACE);
        const place = await structured.invoke('Describe Porto.');
        expect(PLACE.safeParse(place).success, JSON.stringify(place)).to.equal(true);
      });

      it('bindTools: a tool call, then the answer from the tool result', async () => {
        const model = make();
        if (!model.bindTools) throw new Error(`${name} has no bindTools`);
        const withTools = model.bindTools([getWeather]);
        const messages: BaseMessage[] = [new HumanMessage('What is the weather in Madrid? use get_weather')];
        const first = (await withTools.invoke(messages)) as AIMessage;
        expect(first.tool_calls?.map((c) => [c.name, c.args])).to.deep.equal([['get_weather', { city: 'Madrid' }]]);
        const call = first.tool_calls![0]!;
        const result = await getWeather.invoke(call.args as { city: string });
        const second = await withTools.invoke([...messages, first, new ToolMessage({ content: String(result), tool_call_id: call.id! })]);
        expect(second.text).to.equal('Tool get_weather returned: {"city":"Madrid","temperature_c":21}');
      });
    });
  }
});
