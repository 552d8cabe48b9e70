/**
 * The Vercel AI SDK cells of the cloud suites: `@ai-sdk/openai` chat and responses models and
 * `@ai-sdk/anthropic`, as their docs show them, against one catalog model: plain text, a
 * streamed tool loop to the final answer, and a plain tool loop.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { expect } from 'chai';
import { z } from 'zod';
import type { TestGateway } from '../../../helpers/gateway.js';
import type { Fault } from '../../../kit/fake-upstream.js';
import { ANSWERS, TOOL_ARGUMENTS } from '../../text/support/scenario.js';

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

const weather = tool({
  description: 'Current weather for a city.',
  inputSchema: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
  execute: async () => ({ temperature_c: 18, conditions: 'sunny' }),
});

/** Registers the AI SDK cells for `model`. */
export function aiSdkCells(gw: () => TestGateway, model: string, enqueue: (...faults: Fault[]) => void, after: () => void): void {
  const models: Array<[string, () => LanguageModel]> = [
    ['@ai-sdk/openai .chat()', () => createOpenAI({ baseURL: `${gw().url}/v1`, apiKey: gw().key }).chat(model)],
    ['@ai-sdk/openai .responses()', () => createOpenAI({ baseURL: `${gw().url}/v1`, apiKey: gw().key }).responses(model)],
    ['@ai-sdk/anthropic', () => createAnthropic({ baseURL: `${gw().url}/v1`, apiKey: gw().key })(model)],
  ];
  for (const [name, make] of models) {
    describe(`AI SDK ${name}`, () => {
      it('generateText answers', async () => {
        enqueue({ fixture: 'text' });
        const result = await generateText({ model: make(), prompt: 'What is the capital of France?', maxRetries: 0 });
        expect(result.text).to.equal(ANSWERS.text);
        expect(result.finishReason).to.equal('stop');
        expect(result.usage.outputTokens).to.be.greaterThan(0);
        after();
      });
      it('runs a tool loop to the final answer (generateText)', async () => {
        enqueue({ fixture: 'tool-call' }, { fixture: 'tool-final' });
        const result = await generateText({ model: make(), tools: { get_weather: weather }, stopWhen: stepCountIs(3), prompt: 'What is the weather in Paris right now?', maxRetries: 0 });
        expect(result.steps).to.have.length(2);
        expect(result.steps[0]!.toolCalls.map((c) => [c.toolName, c.input])).to.deep.equal([['get_weather', TOOL_ARGUMENTS]]);
        expect(result.text).to.equal(ANSWERS.toolFinal);
        after();
      });
      it('streams a tool loop to the final answer (streamText)', async () => {
        enqueue({ fixture: 'tool-call' }, { fixture: 'tool-final' });
        const result = streamText({ model: make(), tools: { get_weather: weather }, stopWhen: stepCountIs(3), prompt: 'What is the weather in Paris right now?', maxRetries: 0 });
        let text = '';
        for await (const delta of result.textStream) text += delta;
        expect((await result.steps).length).to.equal(2);
        expect(text).to.equal(ANSWERS.toolFinal);
        after();
      });
    });
  }
}
