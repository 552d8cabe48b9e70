/**
 * Thinking across turns for OpenAI-format clients on Claude (issue 10 item 3). Where the client
 * round-trips reasoning (Responses reasoning items, by value or through the response store), the
 * signed thinking block goes back to Anthropic verbatim; where it cannot (plain chat clients),
 * that request runs without thinking instead of failing with Anthropic's 400. The Anthropic fake
 * enforces Anthropic's rule, so a violation fails the cell.
 */
import { expect } from 'chai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ResponseInputItem } from 'openai/resources/responses/responses';
import { makeOpenAiClient } from './support/chat-client.js';
import { cell, useTextGateway } from './support/harness.js';
import { ANSWERS, THINKING, TOOL_QUESTION, TOOL_RESULT, WEATHER_TOOL } from './support/scenario.js';

type Obj = Record<string, unknown>;
const MODEL = 'anthropic/claude-sonnet-5-5';
const CHAT_TOOLS = [{ type: 'function' as const, function: { ...WEATHER_TOOL } }];
const RESPONSES_TOOLS = [{ type: 'function' as const, name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, parameters: WEATHER_TOOL.parameters, strict: true }];
const SIGNED_BLOCK = { type: 'thinking', thinking: THINKING.text, signature: THINKING.anthropicSignature };

describe('thinking across turns: OpenAI-format clients on Claude', () => {
  const h = useTextGateway();
  const lastAssistant = (n: number): Obj[] => ((h.fakes.anthropic.requests[n]!.body.messages as Obj[]).findLast((m) => m.role === 'assistant')!.content as Obj[]);

  cell(h, 'chat client that drops the thinking (like most chat SDKs): the second step runs without thinking, no 400', async () => {
    h.fakes.anthropic.enqueue({ fixture: 'thinking-tool-call' }, { fixture: 'tool-final' });
    const client = makeOpenAiClient(h.gw);
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: TOOL_QUESTION }];
    const first = await client.chat.completions.create({ model: MODEL, messages, tools: CHAT_TOOLS, reasoning_effort: 'high' });
    expect(h.fakes.anthropic.requests[0]!.body.thinking, 'first step thinks').to.not.equal(undefined);
    const call = first.choices[0]!.message.tool_calls![0]!;
    // What the openai SDK types allow: content + tool_calls, no reasoning fields.
    const assistant: ChatCompletionMessageParam = { role: 'assistant', content: null, tool_calls: [call] };
    const second = await client.chat.completions.create({
      model: MODEL, tools: CHAT_TOOLS, reasoning_effort: 'high',
      messages: [...messages, assistant, { role: 'tool', tool_call_id: call.id, content: TOOL_RESULT }],
    });
    expect(second.choices[0]!.message.content).to.equal(ANSWERS.toolFinal);
    expect(h.fakes.anthropic.requests[1]!.body).to.not.have.property('thinking');
  });

  cell(h, 'chat client sending OpenRouter-style reasoning_details back: the signed block returns verbatim', async () => {
    h.fakes.anthropic.enqueue({ fixture: 'thinking-tool-call' }, { fixture: 'tool-final' });
    const client = makeOpenAiClient(h.gw);
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: TOOL_QUESTION }];
    const first = await client.chat.completions.create({ model: MODEL, messages, tools: CHAT_TOOLS, reasoning_effort: 'high' });
    const call = first.choices[0]!.message.tool_calls![0]!;
    const assistant = {
      role: 'assistant', content: null, tool_calls: [call],
      reasoning_details: [{ type: 'reasoning.text', text: THINKING.text, signature: THINKING.anthropicSignature, format: 'anthropic-claude-v1' }],
    } as unknown as ChatCompletionMessageParam;
    const second = await client.chat.completions.create({
      model: MODEL, tools: CHAT_TOOLS, reasoning_effort: 'high',
      messages: [...messages, assistant, { role: 'tool', tool_call_id: call.id, content: TOOL_RESULT }],
    });
    expect(second.choices[0]!.message.content).to.equal(ANSWERS.toolFinal);
    expect(h.fakes.anthropic.requests[1]!.body.thinking).to.not.equal(undefined);
    expect(lastAssistant(1)[0]).to.deep.equal(SIGNED_BLOCK);
  });

  for (const streamed of [false, true]) {
    cell(h, `responses client passing output items back (store: false): the signed block returns verbatim, thinking stays on (${streamed ? 'streamed' : 'plain'})`, async () => {
      h.fakes.anthropic.enqueue({ fixture: 'thinking-tool-call' }, { fixture: 'tool-final' });
      const client = makeOpenAiClient(h.gw);
      const input: ResponseInputItem[] = [{ role: 'user', content: TOOL_QUESTION }];
      const base = { model: MODEL, tools: RESPONSES_TOOLS, reasoning: { effort: 'high' as const }, store: false };
      let output: ResponseInputItem[];
      if (streamed) {
        const stream = client.responses.stream({ ...base, input });
        output = (await stream.finalResponse()).output as ResponseInputItem[];
      } else {
        output = (await client.responses.create({ ...base, input })).output as ResponseInputItem[];
      }
      const reasoning = output.find((i) => i.type === 'reasoning') as { encrypted_content?: string } | undefined;
      expect(reasoning?.encrypted_content, 'signed thinking rides in encrypted_content').to.be.a('string');
      const call = output.find((i) => i.type === 'function_call') as { call_id: string };
      const second = await client.responses.create({ ...base, input: [...input, ...output, { type: 'function_call_output', call_id: call.call_id, output: TOOL_RESULT }] });
      expect(second.output_text).to.equal(ANSWERS.toolFinal);
      expect(h.fakes.anthropic.requests[1]!.body.thinking).to.not.equal(undefined);
      expect(lastAssistant(1)[0]).to.deep.equal(SIGNED_BLOCK);
    });
  }

  cell(h, 'responses client continuing with previous_response_id: the stored thinking goes back verbatim', async () => {
    h.fakes.anthropic.enqueue({ fixture: 'thinking-tool-call' }, { fixture: 'tool-final' });
    const client = makeOpenAiClient(h.gw);
    const first = await client.responses.create({ model: MODEL, tools: RESPONSES_TOOLS, reasoning: { effort: 'high' }, input: TOOL_QUESTION });
    const call = first.output.find((i) => i.type === 'function_call')!;
    const second = await client.responses.create({
      model: MODEL, tools: RESPONSES_TOOLS, reasoning: { effort: 'high' }, previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: (call as { call_id: string }).call_id, output: TOOL_RESULT }],
    });
    expect(second.output_text).to.equal(ANSWERS.toolFinal);
    expect(lastAssistant(1)[0]).to.deep.equal(SIGNED_BLOCK);
  });

  cell(h, 'responses client that drops the reasoning item: the second step runs without thinking', async () => {
    h.fakes.anthropic.enqueue({ fixture: 'thinking-tool-call' }, { fixture: 'tool-final' });
    const client = makeOpenAiClient(h.gw);
    const input: ResponseInputItem[] = [{ role: 'user', content: TOOL_QUESTION }];
    const first = await client.responses.create({ model: MODEL, tools: RESPONSES_TOOLS, reasoning: { effort: 'high' }, store: false, input });
    const call = first.output.find((i) => i.type === 'function_call') as ResponseInputItem & { call_id: string };
    const second = await client.responses.create({
      model: MODEL, tools: RESPONSES_TOOLS, reasoning: { effort: 'high' }, store: false,
      input: [...input, call, { type: 'function_call_output', call_id: call.call_id, output: TOOL_RESULT }],
    });
    expect(second.output_text).to.equal(ANSWERS.toolFinal);
    expect(h.fakes.anthropic.requests[1]!.body).to.not.have.property('thinking');
  });
});
