/** The scenario through the official `openai` SDK's responses (create / stream helper). */
import type { Response, ResponseCreateParamsNonStreaming, ResponseInputItem } from 'openai/resources/responses/responses';
import type { TestGateway } from '../../../helpers/gateway.js';
import { makeOpenAiClient } from './chat-client.js';
import type { ClientDriver, Outcome } from './client-driver.js';
import { IMAGE_QUESTION, IMAGE_URL, PNG_DATA_URL, SYSTEM_PROMPT, TEXT_QUESTION, TOOL_QUESTION, WEATHER_TOOL } from './scenario.js';

/** Reads what the SDK parsed from a response (output_text is the SDK's own convenience). */
export function readResponse(response: Response): Outcome {
  const usage = response.usage;
  return {
    text: response.output_text,
    toolCalls: response.output.flatMap((item) =>
      item.type === 'function_call' ? [{ id: item.call_id, name: item.name, arguments: JSON.parse(item.arguments) as unknown }] : [],
    ),
    usage: {
      input: usage?.input_tokens ?? -1,
      output: usage?.output_tokens ?? -1,
      ...(usage?.input_tokens_details?.cached_tokens !== undefined ? { cached: usage.input_tokens_details.cached_tokens } : {}),
      ...(usage?.output_tokens_details?.reasoning_tokens !== undefined ? { reasoning: usage.output_tokens_details.reasoning_tokens } : {}),
    },
    stop: response.status ?? 'missing',
    raw: response,
  };
}

/** The responses driver. Streams use the SDK's ResponseStream accumulator. */
export function responsesDriver(gw: TestGateway): ClientDriver {
  const client = makeOpenAiClient(gw);
  async function run(params: ResponseCreateParamsNonStreaming, streamed: boolean): Promise<Outcome> {
    if (!streamed) return readResponse(await client.responses.create(params));
    return readResponse(await client.responses.stream({ ...params, stream: true }).finalResponse());
  }
  return {
    name: 'openai SDK responses',
    surface: 'openai-responses',
    stops: { end: 'completed', tool: 'completed' },
    reportsReasoning: true,
    askText: (model, streamed) => run({ model, instructions: SYSTEM_PROMPT, input: TEXT_QUESTION }, streamed),
    askImage: (model, streamed) =>
      run({
        model,
        input: [{
          role: 'user',
          content: [
            { type: 'input_text', text: IMAGE_QUESTION },
            { type: 'input_image', image_url: IMAGE_URL, detail: 'auto' },
            { type: 'input_image', image_url: PNG_DATA_URL, detail: 'auto' },
          ],
        }],
      }, streamed),
    askTool: async (model, streamed) => {
      const input: ResponseInputItem[] = [{ role: 'user', content: TOOL_QUESTION }];
      const tools = [{ type: 'function' as const, ...WEATHER_TOOL, parameters: { ...WEATHER_TOOL.parameters }, strict: false }];
      const first = await run({ model, instructions: SYSTEM_PROMPT, input, tools }, streamed);
      return {
        first,
        answer: (result) => {
          // Stateless multi-turn: the previous output items go back as input, then the results.
          const output = (first.raw as Response).output as ResponseInputItem[];
          const results: ResponseInputItem[] = first.toolCalls.map((call) => ({ type: 'function_call_output', call_id: call.id, output: result }));
          return run({ model, instructions: SYSTEM_PROMPT, input: [...input, ...output, ...results], tools }, streamed);
        },
      };
    },
  };
}
