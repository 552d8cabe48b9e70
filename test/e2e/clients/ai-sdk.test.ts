/**
 * Vercel AI SDK (`ai` 6, `@ai-sdk/openai`, `@ai-sdk/anthropic`) used as its docs show, against
 * the gateway: chat and responses models, plain and streamed text, structured objects from a zod
 * schema, and multi-step tool loops. Assertions are on what the SDK parsed.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateObject, generateText, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { expect } from 'chai';
import { z } from 'zod';
import { CLIENT_KEY, SANDBOX_MODEL, useSandboxGateway } from './gateway.js';

// The SDK warns that it does not know the model's output limit; that is expected here.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const PLACE = z.object({ city: z.string(), population: z.number().int(), coastal: z.boolean() });

const weatherTool = tool({
  description: 'Current weather for a city',
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, temperature_c: 18 }),
});

describe('e2e clients: Vercel AI SDK', () => {
  const h = useSandboxGateway();
  const models: Array<[string, () => LanguageModel]> = [
    ['@ai-sdk/openai .chat()', () => createOpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: CLIENT_KEY }).chat(SANDBOX_MODEL)],
    ['@ai-sdk/openai .responses()', () => createOpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: CLIENT_KEY }).responses(SANDBOX_MODEL)],
    ['@ai-sdk/anthropic', () => createAnthropic({ baseURL: `${h.gw.url}/v1`, apiKey: CLIENT_KEY })(SANDBOX_MODEL)],
  ];

  for (const [name, model] of models) {
    describe(name, () => {
      it('generateText returns the text and usage', async () => {
        const result = await generateText({ model: model(), prompt: 'hello from the ai sdk', maxRetries: 0 });
        expect(result.text).to.equal('Echo: hello from the ai sdk');
        expect(result.finishReason).to.equal('stop');
        expect(result.usage.inputTokens).to.be.greaterThan(0);
        expect(result.usage.outputTokens).to.be.greaterThan(0);
      });

      it('streamText streams the same text', async () => {
        const result = streamText({ model: model(), prompt: 'streaming words arrive', maxRetries: 0 });
        let text = '';
        for await (const delta of result.textStream) text += delta;
        expect(text).to.equal('Echo: streaming words arrive');
        expect(await result.finishReason).to.equal('stop');
        expect((await result.usage).outputTokens).to.be.greaterThan(0);
      });

      it('generateObject returns an object that fits the zod schema', async () => {
        const { object } = await generateObject({ model: model(), schema: PLACE, prompt: 'Describe Lisbon.', maxRetries: 0 });
        expect(PLACE.safeParse(object).success, JSON.stringify(object)).to.equal(true);
      });

      it('runs a tool loop to a final answer (stopWhen)', async () => {
        const result = await generateText({
          model: model(),
          tools: { get_weather: weatherTool },
          stopWhen: stepCountIs(4),
          prompt: 'What is the weather in Paris? Use get_weather.',
          maxRetries: 0,
        });
        expect(result.steps.length).to.equal(2);
        expect(result.steps[0]!.toolCalls.map((c) => c.toolName)).to.deep.equal(['get_weather']);
        expect(result.steps[0]!.toolResults[0]!.output).to.deep.include({ temperature_c: 18 });
        expect(result.text).to.match(/^Tool get_weather returned: .*"temperature_c":18/);
      });

      it('streams a tool loop to a final answer', async () => {
        const result = streamText({
          model: model(),
          tools: { get_weather: weatherTool },
          stopWhen: stepCountIs(4),
          prompt: 'Weather in Oslo please, use get_weather.',
          maxRetries: 0,
        });
        let text = '';
        for await (const delta of result.textStream) text += delta;
        expect((await result.steps).length).to.equal(2);
        expect(text).to.match(/^Tool get_weather returned: /);
      });
    });
  }

  it('@ai-sdk/openai .responses() keeps multi-turn state with previousResponseId', async () => {
    const openai = createOpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: CLIENT_KEY });
    const first = await generateText({ model: openai.responses(SANDBOX_MODEL), prompt: 'first turn', maxRetries: 0 });
    const responseId = (first.providerMetadata?.openai as { responseId?: string } | undefined)?.responseId;
    expect(responseId).to.match(/^resp_/);
    const second = await generateText({
      model: openai.responses(SANDBOX_MODEL),
      prompt: 'second turn',
      providerOptions: { openai: { previousResponseId: responseId! } },
      maxRetries: 0,
    });
    expect(second.text).to.equal('Echo: second turn');
    expect(second.usage.inputTokens, 'the stored first turn is part of the prompt').to.be.greaterThan(first.usage.inputTokens!);
  });

  it('@ai-sdk/openai .responses() runs a reasoning tool loop (reasoning items passed back by reference)', async () => {
    const openai = createOpenAI({ baseURL: `${h.gw.url}/v1`, apiKey: CLIENT_KEY });
    const result = await generateText({
      model: openai.responses(SANDBOX_MODEL),
      tools: { get_weather: weatherTool },
      stopWhen: stepCountIs(4),
      prompt: 'Weather in Rome? use get_weather',
      providerOptions: { openai: { forceReasoning: true, reasoningEffort: 'low', reasoningSummary: 'auto' } },
      maxRetries: 0,
    });
    expect(result.steps.length).to.equal(2);
    expect(result.steps[0]!.reasoningText).to.include('get_weather');
    expect(result.text).to.match(/^Tool get_weather returned: /);
  });
});
