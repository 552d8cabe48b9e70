/**
 * Thinking survives multi-turn tool use: the signed thinking of the tool-call turn goes back to
 * the provider unmodified on the next turn (the most reported failure of other gateways), wherever
 * the client format can hold it; where it cannot, the next request stays valid without it.
 */
import { expect } from 'chai';
import type { ContentBlock, Message, MessageCreateParamsNonStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletion, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { makeOpenAiClient } from './support/chat-client.js';
import { cell, useTextGateway } from './support/harness.js';
import { makeAnthropicClient } from './support/messages-client.js';
import { ANSWERS, SYSTEM_PROMPT, THINKING, TOOL_ARGUMENTS, TOOL_QUESTION, TOOL_RESULT, WEATHER_TOOL } from './support/scenario.js';

type Obj = Record<string, unknown>;
const TOOLS = [{ name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.parameters }];
const FIRST: MessageParam[] = [{ role: 'user', content: TOOL_QUESTION }];

describe('thinking across a tool round trip', () => {
  const h = useTextGateway();

  /** Anthropic client, two turns: returns the first answer's content and the second answer. */
  async function anthropicRoundTrip(model: string, streamed: boolean): Promise<{ first: ContentBlock[]; second: Message }> {
    const client = makeAnthropicClient(h.gw);
    const base = { model, max_tokens: 4096, system: SYSTEM_PROMPT, tools: TOOLS, thinking: { type: 'enabled', budget_tokens: 2048 } } as unknown as Omit<MessageCreateParamsNonStreaming, 'messages'>;
    const ask = async (messages: MessageParam[]) => (streamed ? client.messages.stream({ ...base, messages }).finalMessage() : client.messages.create({ ...base, messages }));
    const first = await ask(FIRST);
    const toolUse = first.content.find((b) => b.type === 'tool_use')!;
    const second = await ask([...FIRST, { role: 'assistant', content: first.content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: TOOL_RESULT }] }]);
    return { first: first.content, second };
  }

  for (const streamed of [false, true]) {
    const mode = streamed ? 'streamed' : 'plain';

    cell(h, `anthropic client -> anthropic upstream: the signed thinking block goes back unmodified (${mode})`, async () => {
      h.fakes.anthropic.enqueue({ fixture: 'thinking-tool-call' }, { fixture: 'tool-final' });
      const { first, second } = await anthropicRoundTrip('anthropic/claude-sonnet-5-5', streamed);
      expect(first[0]).to.deep.include({ type: 'thinking', thinking: THINKING.text, signature: THINKING.anthropicSignature });
      expect(first[1]).to.deep.include({ type: 'tool_use', name: WEATHER_TOOL.name, input: TOOL_ARGUMENTS });
      expect(second.content).to.deep.equal([{ type: 'text', text: ANSWERS.toolFinal }]);
      const assistant = (h.fakes.anthropic.requests[1]!.body.messages as Obj[]).find((m) => m.role === 'assistant')!;
      const blocks = assistant.content as Obj[];
      expect(blocks[0], 'thinking first, byte for byte').to.deep.equal({ type: 'thinking', thinking: THINKING.text, signature: THINKING.anthropicSignature });
      expect(blocks[1]).to.include({ type: 'tool_use', name: WEATHER_TOOL.name });
    });

    cell(h, `anthropic client -> gemini upstream: the thought and its signature go back; the call keeps a signature (${mode})`, async () => {
      h.fakes.gemini.enqueue({ fixture: 'thinking-tool-call' }, { fixture: 'tool-final' });
      const { first, second } = await anthropicRoundTrip('google/gemini-3.8-flash', streamed);
      expect(first[0]).to.deep.include({ type: 'thinking', thinking: THINKING.geminiText, signature: THINKING.geminiThoughtSignature });
      expect(second.content).to.deep.equal([{ type: 'text', text: ANSWERS.toolFinal }]);
      const model = (h.fakes.gemini.requests[1]!.body.contents as Obj[]).find((c) => c.role === 'model')!;
      const parts = model.parts as Obj[];
      expect(parts[0], 'the thought summary with its signature').to.deep.equal({ text: THINKING.geminiText, thought: true, thoughtSignature: THINKING.geminiThoughtSignature });
      const call = parts.find((p) => p.functionCall !== undefined)!;
      expect(call.functionCall).to.deep.include({ name: WEATHER_TOOL.name, args: TOOL_ARGUMENTS });
      // tool_use blocks have no field for the call's own signature: Gemini 3 needs one (the fake
      // checks it), so the original or Google's documented placeholder goes back.
      expect(call.thoughtSignature).to.be.a('string').and.not.equal('');
    });

    cell(h, `anthropic client -> openai-responses upstream: encrypted reasoning goes back as a redacted_thinking round trip (${mode})`, async () => {
      h.fakes.responses.enqueue({ fixture: 'tool-call' }, { fixture: 'tool-final' });
      const { first, second } = await anthropicRoundTrip('openai-responses/gpt-6.2-sol', streamed);
      expect(first.map((b) => b.type)).to.deep.equal(['redacted_thinking', 'tool_use']);
      expect(second.content).to.deep.equal([{ type: 'text', text: ANSWERS.toolFinal }]);
      const input = h.fakes.responses.requests[1]!.body.input as Obj[];
      const reasoning = input.find((i) => i.type === 'reasoning');
      expect(reasoning, 'the reasoning item sent back').to.deep.include({ encrypted_content: THINKING.responsesEncrypted });
      expect(reasoning!.id).to.equal(THINKING.responsesReasoningId);
      expect(input.indexOf(reasoning!)).to.be.lessThan(input.findIndex((i) => i.type === 'function_call'));
    });
  }

  describe('the thinking configuration', () => {
    const ask = (model: string) =>
      makeAnthropicClient(h.gw).messages.create({
        model, max_tokens: 4096, messages: [{ role: 'user', content: TOOL_QUESTION }], thinking: { type: 'enabled', budget_tokens: 2048 },
      } as unknown as MessageCreateParamsNonStreaming);

    cell(h, 'anthropic client -> anthropic upstream: thinking is forwarded as sent', async () => {
      h.fakes.anthropic.enqueue({ fixture: 'text' });
      await ask('anthropic/claude-sonnet-5-5');
      expect(h.fakes.anthropic.last().body.thinking).to.deep.equal({ type: 'enabled', budget_tokens: 2048 });
    });

    cell(h, 'anthropic client -> gemini upstream: the thinking budget becomes thinkingConfig', async () => {
      h.fakes.gemini.enqueue({ fixture: 'text' });
      await ask('google/gemini-3.8-flash');
      const config = (h.fakes.gemini.last().body.generationConfig ?? {}) as Obj;
      expect(config.thinkingConfig).to.deep.include({ thinkingBudget: 2048, includeThoughts: true });
    });
  });

  cell(h, 'anthropic client -> openai-chat upstream: thinking cannot be carried, the request stays valid without it', async () => {
    // OpenAI chat completions has no reasoning field: a Claude turn's thinking is left out, the
    // tool call and its result still go (the fake validates the request).
    h.fakes.chat.enqueue({ fixture: 'tool-final' });
    const history: MessageParam[] = [
      ...FIRST,
      { role: 'assistant', content: [
        { type: 'thinking', thinking: THINKING.text, signature: THINKING.anthropicSignature },
        { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: WEATHER_TOOL.name, input: TOOL_ARGUMENTS },
      ] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: TOOL_RESULT }] },
    ];
    const answer = await makeAnthropicClient(h.gw).messages.create({ model: 'openai/gpt-4.1-mini', max_tokens: 512, tools: TOOLS, messages: history });
    expect(answer.content).to.deep.equal([{ type: 'text', text: ANSWERS.toolFinal }]);
    const messages = h.fakes.chat.last().body.messages as Obj[];
    expect(JSON.stringify(messages)).to.not.include(THINKING.anthropicSignature);
    expect(messages.find((m) => m.role === 'assistant')!.tool_calls).to.have.length(1);
    expect(messages.find((m) => m.role === 'tool')).to.include({ tool_call_id: 'toolu_01A09q90qw90lq917835lq9' });
  });

  cell(h, 'chat client -> anthropic upstream: thinking_blocks carry the signature through a chat client (plain)', async () => {
    h.fakes.anthropic.enqueue({ fixture: 'thinking-tool-call' }, { fixture: 'tool-final' });
    const client = makeOpenAiClient(h.gw);
    const tools = [{ type: 'function' as const, function: { ...WEATHER_TOOL } }];
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: TOOL_QUESTION }];
    const first: ChatCompletion = await client.chat.completions.create({ model: 'anthropic/claude-sonnet-5-5', messages, tools, reasoning_effort: 'medium' });
    const message = first.choices[0]!.message;
    expect((message as unknown as Obj).thinking_blocks).to.deep.equal([{ type: 'thinking', thinking: THINKING.text, signature: THINKING.anthropicSignature }]);
    const call = message.tool_calls![0]!;
    const second = await client.chat.completions.create({
      model: 'anthropic/claude-sonnet-5-5', tools, reasoning_effort: 'medium',
      messages: [...messages, message, { role: 'tool', tool_call_id: call.id, content: TOOL_RESULT }],
    });
    expect(second.choices[0]!.message.content).to.equal(ANSWERS.toolFinal);
    const assistant = (h.fakes.anthropic.requests[1]!.body.messages as Obj[]).find((m) => m.role === 'assistant')!;
    expect((assistant.content as Obj[])[0]).to.deep.equal({ type: 'thinking', thinking: THINKING.text, signature: THINKING.anthropicSignature });
  });

  cell(h, 'chat client -> anthropic upstream: the streamed thinking block arrives with its signature', async () => {
    h.fakes.anthropic.enqueue({ fixture: 'thinking-tool-call' });
    const stream = await makeOpenAiClient(h.gw).chat.completions.create({
      model: 'anthropic/claude-sonnet-5-5', messages: [{ role: 'user', content: TOOL_QUESTION }], tools: [{ type: 'function', function: { ...WEATHER_TOOL } }], stream: true,
    });
    const blocks: Obj[] = [];
    let reasoning = '';
    for await (const chunk of stream) {
      const delta = (chunk.choices[0]?.delta ?? {}) as Obj;
      if (Array.isArray(delta.thinking_blocks)) blocks.push(...(delta.thinking_blocks as Obj[]));
      if (typeof delta.reasoning_content === 'string') reasoning += delta.reasoning_content;
    }
    expect(reasoning).to.equal(THINKING.text);
    expect(blocks).to.deep.equal([{ type: 'thinking', thinking: THINKING.text, signature: THINKING.anthropicSignature }]);
  });
});
