import { expect } from 'chai';
import type OpenAI from 'openai';
import { getJson, openAiClient, useSandbox } from './helpers.js';

const MODEL = 'sandbox/echo-1';
const weatherTool: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, required: ['city'] },
  },
};

/** Chat fields the gateway adds for thinking (de-facto extensions, see the openai-chat codec). */
interface ThinkingMessage { reasoning_content?: string; thinking_blocks?: Array<{ type: string; thinking?: string; signature?: string }> }

describe('e2e sandbox: POST /v1/chat/completions (openai SDK)', () => {
  const sb = useSandbox(openAiClient);

  describe('chat.completions.create', () => {
    it('answers a plain request with the echo, the canonical model id and usage', async () => {
      const completion = await sb.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hello gateway' }] });
      expect(completion.object).to.equal('chat.completion');
      expect(completion.id).to.match(/^chatcmpl-/);
      expect(completion.model).to.equal(MODEL);
      expect(completion.choices).to.have.length(1);
      expect(completion.choices[0]!.message.role).to.equal('assistant');
      expect(completion.choices[0]!.message.content).to.equal('Echo: hello gateway');
      expect(completion.choices[0]!.finish_reason).to.equal('stop');
      expect(completion.usage!.prompt_tokens).to.be.greaterThan(0);
      expect(completion.usage!.completion_tokens).to.be.greaterThan(0);
      expect(completion.usage!.total_tokens).to.equal(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
    });

    it('honours a system message and max_completion_tokens (finish length)', async () => {
      const completion = await sb.client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'one two three four five six seven eight nine ten eleven twelve' }],
        max_completion_tokens: 2,
      });
      expect(completion.choices[0]!.finish_reason).to.equal('length');
      expect(completion.usage!.completion_tokens).to.be.at.most(2);
      expect('Echo: one two three four five six seven eight nine ten eleven twelve'.startsWith(completion.choices[0]!.message.content ?? 'x')).to.equal(true);
    });

    it('streams chunk by chunk and adds the usage chunk when include_usage is true', async () => {
      const stream = await sb.client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'stream these five words please' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
      expect(text).to.equal('Echo: stream these five words please');
      expect(chunks.filter((c) => (c.choices[0]?.delta.content ?? '') !== '').length).to.be.greaterThan(3);
      expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === MODEL)).to.equal(true);
      expect(new Set(chunks.map((c) => c.id)).size).to.equal(1);
      expect(chunks.some((c) => c.choices[0]?.finish_reason === 'stop')).to.equal(true);
      const last = chunks.at(-1)!;
      expect(last.choices).to.deep.equal([]);
      expect(last.usage!.completion_tokens).to.be.greaterThan(0);
      expect(last.usage!.prompt_tokens).to.be.greaterThan(0);
    });

    it('leaves the usage chunk out when include_usage is not asked', async () => {
      const stream = await sb.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'no usage please' }], stream: true });
      const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).to.equal('Echo: no usage please');
      expect(chunks.some((c) => c.usage)).to.equal(false);
      expect(chunks.every((c) => c.choices.length === 1)).to.equal(true);
    });

    it('calls a tool with schema-valid arguments, then answers from the tool result', async () => {
      const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Use get_weather for Paris' }];
      const first = await sb.client.chat.completions.create({ model: MODEL, messages, tools: [weatherTool] });
      const choice = first.choices[0]!;
      expect(choice.finish_reason).to.equal('tool_calls');
      expect(choice.message.content).to.equal(null);
      const call = choice.message.tool_calls![0]!;
      expect(call.type).to.equal('function');
      if (call.type !== 'function') throw new Error('not a function call');
      expect(call.function.name).to.equal('get_weather');
      const args = JSON.parse(call.function.arguments) as { city: unknown; unit?: unknown };
      expect(args.city).to.be.a('string').and.not.equal('');
      if (args.unit !== undefined) expect(['celsius', 'fahrenheit']).to.include(args.unit);

      messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: '18 C and sunny' });
      const second = await sb.client.chat.completions.create({ model: MODEL, messages, tools: [weatherTool] });
      expect(second.choices[0]!.finish_reason).to.equal('stop');
      expect(second.choices[0]!.message.content).to.equal('Tool get_weather returned: 18 C and sunny');
    });

    it('streams tool-call arguments as fragments that join into valid JSON', async () => {
      const stream = await sb.client.chat.completions.create({
        model: MODEL,
        messages: [{ role: 'user', content: 'Use get_weather for Reykjavik in celsius' }],
        tools: [weatherTool],
        tool_choice: { type: 'function', function: { name: 'get_weather' } },
        stream: true,
      });
      let name = '';
      let id = '';
      const fragments: string[] = [];
      let finish: string | null = null;
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        for (const tc of choice?.delta.tool_calls ?? []) {
          expect(tc.index).to.equal(0);
          if (tc.id) id = tc.id;
          if (tc.function?.name) name += tc.function.name;
          if (tc.function?.arguments) fragments.push(tc.function.arguments);
        }
        if (choice?.finish_reason) finish = choice.finish_reason;
      }
      expect(name).to.equal('get_weather');
      expect(id).to.not.equal('');
      expect(fragments.length).to.be.greaterThan(1);
      const args = JSON.parse(fragments.join('')) as { city: string };
      expect(args.city).to.be.a('string').and.not.equal('');
      expect(finish).to.equal('tool_calls');
    });

    it('returns signed thinking with reasoning_effort, which the model card lists as supported', async () => {
      const card = await getJson<{ supported_parameters: string[] }>(sb.gw, `/v1/models/${MODEL}`);
      expect(card.body.supported_parameters).to.include('reasoning_effort');
      const completion = await sb.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'think first' }], reasoning_effort: 'low' });
      const message = completion.choices[0]!.message as OpenAI.Chat.Completions.ChatCompletionMessage & ThinkingMessage;
      expect(message.content).to.equal('Echo: think first');
      expect(message.reasoning_content).to.be.a('string').and.include('think first');
      expect(message.thinking_blocks![0]!.type).to.equal('thinking');
      expect(message.thinking_blocks![0]!.signature).to.be.a('string').and.not.equal('');
      expect(completion.usage!.completion_tokens_details!.reasoning_tokens).to.be.greaterThan(0);
    });

    it('streams thinking deltas before the answer with reasoning_effort', async () => {
      const stream = await sb.client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'think while streaming' }], reasoning_effort: 'medium', stream: true });
      let reasoning = '';
      let text = '';
      let sawTextBeforeReasoning = false;
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta as (OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & ThinkingMessage) | undefined;
        if (delta?.reasoning_content) {
          if (text !== '') sawTextBeforeReasoning = true;
          reasoning += delta.reasoning_content;
        }
        text += delta?.content ?? '';
      }
      expect(reasoning).to.include('think while streaming');
      expect(text).to.equal('Echo: think while streaming');
      expect(sawTextBeforeReasoning).to.equal(false);
    });
  });
});
