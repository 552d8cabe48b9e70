/**
 * Bedrock Converse (`type: bedrock-converse`) reached by the official `openai` and
 * `@anthropic-ai/sdk` clients through chat completions, messages and responses, plain and
 * streamed, with tools and reasoning. The fake runtime verifies every SigV4 signature; the
 * assertions are on what the clients parsed and what reached the fake.
 */
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import { useBedrockGateway } from './support.js';

const NOVA = 'bedrock/nova-pro';
const CLAUDE = 'bedrock/claude-sonnet-5-5';
const weatherTool = { type: 'function' as const, function: { name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } };

describe('e2e bedrock: Converse through the official clients', () => {
  const h = useBedrockGateway({ GATEWAY_FETCH_ALLOW_PRIVATE: 'true' });
  const openai = () => new OpenAI({ apiKey: h.gw.key, baseURL: `${h.gw.url}/v1`, maxRetries: 0 });
  const anthropic = () => new Anthropic({ apiKey: h.gw.key, baseURL: h.gw.url, maxRetries: 0 });

  it('chat: a plain answer with usage (cache reads included) and a cost; the request was Converse, signed for the region', async () => {
    const res = await openai().chat.completions.create({ model: NOVA, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }], max_tokens: 50, temperature: 0.2 });
    expect(res.choices[0]!.message.content).to.equal('Hello from us.amazon.nova-pro-v1:0.');
    expect(res.choices[0]!.finish_reason).to.equal('stop');
    expect(res.usage!.prompt_tokens).to.equal(25);
    expect(res.usage!.completion_tokens).to.equal(9);
    // 21 uncached + 4 cache-read prompt tokens and 9 output tokens at bedrock/nova-pro's prices.
    expect((res.usage as unknown as { cost: number }).cost).to.be.closeTo(21 * 0.0000008 + 4 * 0.0000002 + 9 * 0.0000032, 1e-12);
    const sent = h.fake.requests[0]!;
    expect(sent.operation).to.equal('converse');
    expect(sent.modelId).to.equal('us.amazon.nova-pro-v1:0');
    expect(['us-east-1', 'us-west-2']).to.include(sent.region);
    expect(sent.body).to.deep.include({ system: [{ text: 'Be brief.' }], inferenceConfig: { maxTokens: 50, temperature: 0.2 } });
    expect(h.fake.refusals).to.deep.equal([]);
  });

  it('chat with an image URL: the gateway fetches it and sends Converse the bytes', async () => {
    await openai().chat.completions.create({ model: NOVA, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: `${h.fake.url}/cat.png` } }] }] });
    const content = (h.fake.requests[0]!.body.messages as Array<{ content: unknown[] }>)[0]!.content;
    expect(content).to.deep.equal([{ text: 'What is this?' }, { image: { format: 'png', source: { bytes: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64') } } }]);
  });

  it('chat stream: text deltas, a finish reason and the usage chunk', async () => {
    const stream = await openai().chat.completions.create({ model: NOVA, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(text).to.equal('Hello from us.amazon.nova-pro-v1:0.');
    expect(finish).to.equal('stop');
    expect(usage).to.include({ prompt_tokens: 25, completion_tokens: 9 });
    expect(h.fake.requests[0]!.operation).to.equal('converse-stream');
  });

  it('chat with tools: a streamed tool call, then the tool result answered in text', async () => {
    const client = openai();
    const stream = await client.chat.completions.create({ model: NOVA, messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools: [weatherTool], tool_choice: 'required', stream: true });
    let args = '';
    let id = '';
    let name = '';
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      if (call?.id) id = call.id;
      if (call?.function?.name) name = call.function.name;
      args += call?.function?.arguments ?? '';
    }
    expect(name).to.equal('get_weather');
    expect(JSON.parse(args)).to.deep.equal({ city: 'Oslo' });
    expect(h.fake.requests[0]!.body.toolConfig).to.deep.include({ toolChoice: { any: {} } });
    const second = await client.chat.completions.create({
      model: NOVA,
      tools: [weatherTool],
      messages: [
        { role: 'user', content: 'Weather in Oslo?' },
        { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: args } }] },
        { role: 'tool', tool_call_id: id, content: '{"tempC":4}' },
      ],
    });
    expect(second.choices[0]!.message.content).to.equal('It is 4 degrees in Oslo.');
    const turns = h.fake.requests[1]!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(turns.map((t) => t.role)).to.deep.equal(['user', 'assistant', 'user']);
    expect(turns[2]!.content[0]).to.deep.equal({ toolResult: { toolUseId: id, content: [{ text: '{"tempC":4}' }] } });
  });

  it('messages stream with thinking: reasoning with its signature, then text; the signature goes back as reasoningContent', async () => {
    const client = anthropic();
    const stream = client.messages.stream({ model: CLAUDE, max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 }, messages: [{ role: 'user', content: 'Weather?' }] });
    const message = await stream.finalMessage();
    const thinking = message.content.find((b) => b.type === 'thinking');
    expect(thinking).to.deep.include({ type: 'thinking', thinking: 'The user wants the weather; I should check.' });
    expect((thinking as { signature: string }).signature).to.match(/^sig-\d+$/);
    expect(message.content.find((b) => b.type === 'text')).to.deep.include({ text: 'Hello from us.anthropic.claude-sonnet-5-5-v1:0.' });
    expect(message.stop_reason).to.equal('end_turn');
    expect(h.fake.requests[0]!.body.additionalModelRequestFields).to.deep.equal({ thinking: { type: 'enabled', budget_tokens: 2000 } });
    await client.messages.create({ model: CLAUDE, max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 }, messages: [{ role: 'user', content: 'Weather?' }, { role: 'assistant', content: message.content }, { role: 'user', content: 'And tomorrow?' }] });
    const assistant = (h.fake.requests[1]!.body.messages as Array<{ role: string; content: unknown[] }>)[1]!;
    expect(assistant.content[0]).to.deep.equal({ reasoningContent: { reasoningText: { text: 'The user wants the weather; I should check.', signature: (thinking as { signature: string }).signature } } });
  });

  it('messages with tools: a tool_use block with its input', async () => {
    const message = await anthropic().messages.create({ model: CLAUDE, max_tokens: 500, tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }], messages: [{ role: 'user', content: 'Oslo?' }] });
    expect(message.stop_reason).to.equal('tool_use');
    expect(message.content.find((b) => b.type === 'tool_use')).to.deep.include({ name: 'get_weather', input: { city: 'Oslo' } });
  });

  it('responses: plain and streamed, with reasoning effort on Claude', async () => {
    const client = openai();
    const plain = await client.responses.create({ model: NOVA, input: 'hi' });
    expect(plain.output_text).to.equal('Hello from us.amazon.nova-pro-v1:0.');
    const stream = await client.responses.create({ model: CLAUDE, input: 'hi', reasoning: { effort: 'low' }, max_output_tokens: 4000, stream: true });
    let text = '';
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(text).to.equal('Hello from us.anthropic.claude-sonnet-5-5-v1:0.');
    expect(completed!.output.some((item) => item.type === 'reasoning')).to.equal(true);
    expect(h.fake.requests[1]!.body.additionalModelRequestFields).to.deep.equal({ thinking: { type: 'enabled', budget_tokens: 2048 } });
  });

  it('an exception frame mid-stream ends the client\'s stream with an error in its format', async () => {
    h.fake.failNextStream('throttlingException', 'Too many tokens, please wait before trying again.', 2);
    const stream = await openai().chat.completions.create({ model: NOVA, messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    let failure: unknown;
    try {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    } catch (e) {
      failure = e;
    }
    expect(text).to.equal('Hello from us.amaz'); // the first of the two text deltas
    expect(String(failure)).to.match(/Too many tokens/);
    h.fake.failNextStream('serviceUnavailableException', 'Bedrock is unable to process your request.', 3);
    const messages = anthropic().messages.stream({ model: CLAUDE, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    let anthropicFailure: unknown;
    try {
      await messages.finalMessage();
    } catch (e) {
      anthropicFailure = e;
    }
    expect(anthropicFailure).to.be.instanceOf(Anthropic.APIError);
    expect(String(anthropicFailure)).to.match(/overloaded_error|unable to process/);
  });
});
