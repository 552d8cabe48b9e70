/** The scenario through the official `openai` SDK's chat.completions (create / stream helper). */
import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { TestGateway } from '../../../helpers/gateway.js';
import type { ClientDriver, Outcome } from './client-driver.js';
import { IMAGE_QUESTION, IMAGE_URL, PNG_DATA_URL, SYSTEM_PROMPT, TEXT_QUESTION, TOOL_QUESTION, WEATHER_TOOL } from './scenario.js';

/** An `openai` client of the gateway's /v1 with retries off. */
export function makeOpenAiClient(gw: TestGateway): OpenAI {
  return new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
}

/** Reads what the SDK parsed from a chat completion. */
export function readChatCompletion(completion: ChatCompletion): Outcome {
  const choice = completion.choices[0]!;
  const usage = completion.usage;
  return {
    text: choice.message.content ?? '',
    toolCalls: (choice.message.tool_calls ?? []).flatMap((tc) =>
      tc.type === 'function' ? [{ id: tc.id, name: tc.function.name, arguments: JSON.parse(tc.function.arguments) as unknown }] : [],
    ),
    usage: {
      input: usage?.prompt_tokens ?? -1,
      output: usage?.completion_tokens ?? -1,
      ...(usage?.prompt_tokens_details?.cached_tokens !== undefined ? { cached: usage.prompt_tokens_details.cached_tokens } : {}),
      ...(usage?.completion_tokens_details?.reasoning_tokens !== undefined ? { reasoning: usage.completion_tokens_details.reasoning_tokens } : {}),
    },
    stop: choice.finish_reason,
    raw: completion,
  };
}

/** The chat.completions driver. Streams use the SDK's ChatCompletionStream accumulator. */
export function chatDriver(gw: TestGateway): ClientDriver {
  const client = makeOpenAiClient(gw);
  async function run(params: ChatCompletionCreateParamsNonStreaming, streamed: boolean): Promise<Outcome> {
    if (!streamed) return readChatCompletion(await client.chat.completions.create(params));
    const stream = client.chat.completions.stream({ ...params, stream: true, stream_options: { include_usage: true } });
    return readChatCompletion(await stream.finalChatCompletion());
  }
  return {
    name: 'openai SDK chat.completions',
    surface: 'openai-chat',
    stops: { end: 'stop', tool: 'tool_calls' },
    reportsReasoning: true,
    askText: (model, streamed) =>
      run({ model, messages: [{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: TEXT_QUESTION }] }, streamed),
    askImage: (model, streamed) =>
      run({
        model,
        messages: [{
          role: 'user',
          content: [
            { type: 'text', text: IMAGE_QUESTION },
            { type: 'image_url', image_url: { url: IMAGE_URL } },
            { type: 'image_url', image_url: { url: PNG_DATA_URL } },
          ],
        }],
      }, streamed),
    askTool: async (model, streamed) => {
      const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: TOOL_QUESTION }];
      const tools = [{ type: 'function' as const, function: { ...WEATHER_TOOL, parameters: { ...WEATHER_TOOL.parameters } } }];
      const first = await run({ model, messages, tools }, streamed);
      return {
        first,
        answer: (result) => {
          // As applications do: the assistant message goes back as the SDK returned it.
          const assistant = (first.raw as ChatCompletion).choices[0]!.message;
          const results: ChatCompletionMessageParam[] = first.toolCalls.map((call) => ({ role: 'tool', tool_call_id: call.id, content: result }));
          return run({ model, messages: [...messages, assistant, ...results], tools }, streamed);
        },
      };
    },
  };
}
