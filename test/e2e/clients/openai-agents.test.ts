/**
 * OpenAI Agents SDK (`@openai/agents`) used as its docs show for a custom OpenAI-compatible
 * endpoint: `setDefaultOpenAIClient` (and an explicit `OpenAIResponsesModel`), an agent with a
 * function tool and a zod `outputType`, and multi-turn runs (history passed back, and
 * `previousResponseId` with server-side state). Assertions are on what the run parsed.
 */
import { Agent, OpenAIResponsesModel, run, setDefaultOpenAIClient, setTracingDisabled, tool } from '@openai/agents';
import { expect } from 'chai';
import OpenAI from 'openai';
import { z } from 'zod';
import { CLIENT_KEY, SANDBOX_MODEL, useSandboxGateway } from './gateway.js';

const REPORT = z.object({ city: z.string(), summary: z.string(), temperature_c: z.number() });

describe('e2e clients: OpenAI Agents SDK', () => {
  const h = useSandboxGateway();
  let calls: string[];
  const getWeather = tool({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      calls.push(city);
      return JSON.stringify({ city, temperature_c: 17 });
    },
  });

  before(() => {
    setTracingDisabled(true);
    setDefaultOpenAIClient(new OpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: CLIENT_KEY, maxRetries: 0 }));
  });
  beforeEach(() => { calls = []; });

  it('runs an agent with a tool to a plain answer', async () => {
    const agent = new Agent({ name: 'Weather', instructions: 'Answer weather questions.', model: SANDBOX_MODEL, tools: [getWeather] });
    const result = await run(agent, 'What is the weather in Lyon? use get_weather');
    expect(calls).to.deep.equal(['Lyon']);
    expect(result.finalOutput).to.equal('Tool get_weather returned: {"city":"Lyon","temperature_c":17}');
  });

  it('parses a structured outputType after the tool loop', async () => {
    const agent = new Agent({ name: 'Reporter', instructions: 'Report the weather.', model: SANDBOX_MODEL, tools: [getWeather], outputType: REPORT });
    const result = await run(agent, 'Weather in Nice? use get_weather');
    expect(calls).to.deep.equal(['Nice']);
    const report = result.finalOutput!;
    expect(REPORT.safeParse(report).success, JSON.stringify(report)).to.equal(true);
  });

  it('continues a conversation from the run history (multi-turn)', async () => {
    const agent = new Agent({ name: 'Echo', instructions: 'Be brief.', model: new OpenAIResponsesModel(new OpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: CLIENT_KEY, maxRetries: 0 }), SANDBOX_MODEL) });
    const first = await run(agent, 'my name is Ada');
    expect(first.finalOutput).to.equal('Echo: my name is Ada');
    const second = await run(agent, [...first.history, { role: 'user', content: 'what did I say?' }]);
    expect(second.finalOutput).to.equal('Echo: what did I say?');
    expect(second.history.length).to.equal(first.history.length + 2);
  });

  it('continues with previousResponseId (server-side conversation state)', async () => {
    const weather = new Agent({ name: 'Weather', instructions: 'Answer weather questions.', model: SANDBOX_MODEL, tools: [getWeather] });
    const first = await run(weather, 'Weather in Bern? use get_weather');
    expect(first.lastResponseId).to.match(/^resp_/);
    const chat = new Agent({ name: 'Chat', instructions: 'Answer weather questions.', model: SANDBOX_MODEL });
    const fresh = await run(chat, 'thanks, and now just say bye');
    const second = await run(chat, 'thanks, and now just say bye', { previousResponseId: first.lastResponseId! });
    expect(second.finalOutput).to.equal('Echo: thanks, and now just say bye');
    // The stored tool loop of the first run is part of the second prompt.
    expect(second.rawResponses[0]!.usage.inputTokens).to.be.greaterThan(fresh.rawResponses[0]!.usage.inputTokens);
    expect(calls).to.deep.equal(['Bern']);
  });
});
