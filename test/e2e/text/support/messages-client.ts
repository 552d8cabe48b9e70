/** The scenario through the official `@anthropic-ai/sdk` messages (create / stream helper). */
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { TestGateway } from '../../../helpers/gateway.js';
import type { ClientDriver, Outcome } from './client-driver.js';
import { IMAGE_QUESTION, IMAGE_URL, PNG_BASE64, SYSTEM_PROMPT, TEXT_QUESTION, TOOL_QUESTION, WEATHER_TOOL } from './scenario.js';

/** An Anthropic client of the gateway with retries off. */
export function makeAnthropicClient(gw: TestGateway): Anthropic {
  return new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
}

/** Reads what the SDK parsed from a message; input counts cache reads and writes too. */
export function readMessage(message: Message): Outcome {
  const u = message.usage;
  const cached = u.cache_read_input_tokens ?? 0;
  return {
    text: message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''),
    toolCalls: message.content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: b.input }] : [])),
    usage: { input: u.input_tokens + cached + (u.cache_creation_input_tokens ?? 0), output: u.output_tokens, cached },
    stop: message.stop_reason ?? 'missing',
    raw: message,
  };
}

/** The messages driver. Streams use the SDK's MessageStream accumulator. */
export function messagesDriver(gw: TestGateway): ClientDriver {
  const client = makeAnthropicClient(gw);
  async function run(params: MessageCreateParamsNonStreaming, streamed: boolean): Promise<Outcome> {
    if (!streamed) return readMessage(await client.messages.create(params));
    return readMessage(await client.messages.stream(params).finalMessage());
  }
  return {
    name: 'anthropic SDK messages',
    surface: 'anthropic-messages',
    stops: { end: 'end_turn', tool: 'tool_use' },
    reportsReasoning: false,
    askText: (model, streamed) =>
      run({ model, max_tokens: 1024, system: SYSTEM_PROMPT, messages: [{ role: 'user', content: TEXT_QUESTION }] }, streamed),
    askImage: (model, streamed) =>
      run({
        model,
        max_tokens: 1024,
        messages: [{
          role: 'user',
          content: [
            { type: 'text', text: IMAGE_QUESTION },
            { type: 'image', source: { type: 'url', url: IMAGE_URL } },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
          ],
        }],
      }, streamed),
    askTool: async (model, streamed) => {
      const messages: MessageParam[] = [{ role: 'user', content: TOOL_QUESTION }];
      const tools = [{ name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: { ...WEATHER_TOOL.parameters, type: 'object' as const } }];
      const first = await run({ model, max_tokens: 1024, system: SYSTEM_PROMPT, messages, tools }, streamed);
      return {
        first,
        answer: (result) => {
          // As applications do: the assistant content goes back unmodified (thinking blocks included).
          const assistant: MessageParam = { role: 'assistant', content: (first.raw as Message).content };
          const results: MessageParam = { role: 'user', content: first.toolCalls.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.id, content: result })) };
          return run({ model, max_tokens: 1024, system: SYSTEM_PROMPT, messages: [...messages, assistant, results], tools }, streamed);
        },
      };
    },
  };
}
