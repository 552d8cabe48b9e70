/**
 * Prompt caching through AWS Bedrock (issue 30): `cache_control` breakpoints reach Claude on
 * InvokeModel as they are, and Converse models as `cachePoint` blocks where Bedrock takes them
 * (Claude: system, messages, tools; Nova: not tools). The fake Bedrock checks the breakpoints as
 * Bedrock would (test/kit/bedrock/cache-points.ts: a malformed one, more than four, or one where
 * the model takes none is a ValidationException) and answers cache writes for them; each
 * surface reports the cache tokens in its own usage fields, priced with the cache prices.
 */
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import { CACHE_WRITE_TOKENS } from '../../kit/bedrock/bedrock-answers.js';
import { useBedrockGateway } from '../bedrock/support.js';

const INVOKE = 'bedrock-claude/claude-sonnet-5-5';
const CONVERSE = 'bedrock/claude-sonnet-5-5';
const NOVA = 'bedrock/nova-pro';
const EPHEMERAL = { type: 'ephemeral' as const };
/** What the fake reports besides the cache write: 21 uncached input, 4 read from the cache, 9 output. */
const READ = 4;
const UNCACHED = 21;
const OUTPUT = 9;
/** Claude Sonnet 5.5 on Bedrock (gateway.yaml): prompt, completion, cache read, cache write per token. */
const PRICE = { prompt: 2e-6, completion: 1e-5, read: 1e-7, write: 2.5e-6 };
const CACHED_COST = UNCACHED * PRICE.prompt + READ * PRICE.read + CACHE_WRITE_TOKENS * PRICE.write + OUTPUT * PRICE.completion;

/** A Messages request with a breakpoint on the system prompt, the tool list and the first content block (that one for an hour). */
function markedMessages(model: string): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model, max_tokens: 200,
    system: [{ type: 'text', text: 'Long shared instructions.', cache_control: EPHEMERAL }],
    tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } }, cache_control: EPHEMERAL }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'A shared document.', cache_control: { type: 'ephemeral', ttl: '1h' } }, { type: 'text', text: 'Weather in Oslo?' }] }],
  };
}

/** The same breakpoints in LiteLLM's convention for OpenAI-format clients (cache_control on content parts and tools). */
const markedChat = {
  messages: [
    { role: 'system', content: [{ type: 'text', text: 'Long shared instructions.', cache_control: EPHEMERAL }] },
    { role: 'user', content: [{ type: 'text', text: 'A shared document.', cache_control: { type: 'ephemeral', ttl: '1h' } }, { type: 'text', text: 'Weather in Oslo?' }] },
  ],
  tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }, cache_control: EPHEMERAL }],
} as unknown as Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, 'model'>;

describe('e2e/cache: prompt caching through AWS Bedrock (official SDKs, fake Bedrock)', function () {
  this.timeout(30_000);
  const h = useBedrockGateway();
  const anthropic = () => new Anthropic({ apiKey: h.gw.key, baseURL: h.gw.url, maxRetries: 0 });
  const openai = () => new OpenAI({ apiKey: h.gw.key, baseURL: `${h.gw.url}/v1`, maxRetries: 0 });
  afterEach(() => expect(h.fake.refusals, 'requests Bedrock refused for their signature').to.deep.equal([]));

  it('messages -> Claude on InvokeModel: every breakpoint arrives, passed through and translated; usage and cost read the cache', async () => {
    const plain = await anthropic().messages.create(markedMessages(INVOKE)).withResponse();
    // A budget makes the gateway translate the call (its output limit applies).
    const translated = await anthropic().messages.create({ ...markedMessages(INVOKE), max_budget_usd: 1 } as Anthropic.MessageCreateParamsNonStreaming);
    expect(h.fake.requests).to.have.length(2);
    for (const sent of h.fake.requests) {
      expect(sent.operation).to.equal('invoke');
      expect(sent.breakpoints, 'the fake found the three breakpoints').to.deep.equal(['system[0]', 'tools[0]', 'messages[0].content[0]']);
      const content = (sent.body.messages as Array<{ content: Array<Record<string, unknown>> }>)[0]!.content;
      expect(content[0]!.cache_control).to.deep.equal({ type: 'ephemeral', ttl: '1h' });
    }
    for (const usage of [plain.data.usage, translated.usage]) {
      expect(usage).to.include({ input_tokens: UNCACHED, cache_read_input_tokens: READ, cache_creation_input_tokens: CACHE_WRITE_TOKENS, output_tokens: OUTPUT });
    }
    expect(Number(plain.response.headers.get('x-gateway-cost'))).to.be.closeTo(CACHED_COST, 1e-12);
  });

  it('messages stream -> Claude on InvokeModel: the breakpoints arrive, the final usage carries the cache write', async () => {
    const message = await anthropic().messages.stream({ ...markedMessages(INVOKE) }).finalMessage();
    expect(h.fake.requests[0]!.operation).to.equal('invoke-with-response-stream');
    expect(h.fake.requests[0]!.breakpoints).to.deep.equal(['system[0]', 'tools[0]', 'messages[0].content[0]']);
    expect(message.usage).to.include({ cache_read_input_tokens: READ, cache_creation_input_tokens: CACHE_WRITE_TOKENS });
  });

  it('chat -> Claude on InvokeModel: cache_control on content parts and tools arrives as Claude breakpoints', async () => {
    const res = await openai().chat.completions.create({ model: INVOKE, ...markedChat }).withResponse();
    const sent = h.fake.requests[0]!;
    expect(sent.breakpoints).to.deep.equal(['system[0]', 'tools[0]', 'messages[0].content[0]']);
    expect((sent.body.messages as Array<{ content: Array<Record<string, unknown>> }>)[0]!.content[0]!.cache_control).to.deep.equal({ type: 'ephemeral', ttl: '1h' });
    const usage = res.data.usage!;
    expect(usage.prompt_tokens).to.equal(UNCACHED + READ + CACHE_WRITE_TOKENS);
    expect(usage.prompt_tokens_details!.cached_tokens).to.equal(READ);
    expect((usage as unknown as { cache_creation_input_tokens: number }).cache_creation_input_tokens).to.equal(CACHE_WRITE_TOKENS);
    expect(Number(res.response.headers.get('x-gateway-cost'))).to.be.closeTo(CACHED_COST, 1e-12);
  });

  it('messages -> Claude on Converse: each breakpoint becomes a cachePoint after its block (TTL kept); usage in Anthropic fields', async () => {
    const res = await anthropic().messages.create(markedMessages(CONVERSE)).withResponse();
    const sent = h.fake.requests[0]!;
    expect(sent.operation).to.equal('converse');
    expect(sent.breakpoints).to.deep.equal(['system[1]', 'tools[1]', 'messages[0].content[1]']);
    expect(sent.body.system).to.deep.equal([{ text: 'Long shared instructions.' }, { cachePoint: { type: 'default' } }]);
    expect((sent.body.messages as Array<{ content: unknown[] }>)[0]!.content).to.deep.equal([
      { text: 'A shared document.' }, { cachePoint: { type: 'default', ttl: '1h' } }, { text: 'Weather in Oslo?' },
    ]);
    expect(res.data.usage).to.include({ input_tokens: UNCACHED, cache_read_input_tokens: READ, cache_creation_input_tokens: CACHE_WRITE_TOKENS });
    expect(Number(res.response.headers.get('x-gateway-cost'))).to.be.closeTo(CACHED_COST, 1e-12);
  });

  it('chat and responses -> Claude on Converse, streamed: cachePoints sent, cacheRead/WriteInputTokens in each surface\'s usage', async () => {
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of await openai().chat.completions.create({ model: CONVERSE, ...markedChat, stream: true, stream_options: { include_usage: true } })) if (chunk.usage) usage = chunk.usage;
    expect(h.fake.requests[0]!.operation).to.equal('converse-stream');
    expect(h.fake.requests[0]!.breakpoints).to.deep.equal(['system[1]', 'tools[1]', 'messages[0].content[1]']);
    expect(usage!.prompt_tokens_details!.cached_tokens).to.equal(READ);
    expect((usage as unknown as { cache_creation_input_tokens: number }).cache_creation_input_tokens).to.equal(CACHE_WRITE_TOKENS);
    expect((usage as unknown as { cost: number }).cost).to.be.closeTo(CACHED_COST, 1e-12);

    const responses = await openai().responses.create({
      model: CONVERSE, store: false,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'A shared document.', cache_control: EPHEMERAL }, { type: 'input_text', text: 'Hello?' }] }],
    } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    expect(h.fake.requests[1]!.breakpoints).to.deep.equal(['messages[0].content[1]']);
    expect(responses.usage!.input_tokens).to.equal(UNCACHED + READ + CACHE_WRITE_TOKENS);
    expect(responses.usage!.input_tokens_details.cached_tokens).to.equal(READ);
  });

  it('chat -> Nova on Converse: cachePoints in system and messages, none on tools (Nova caches no tools)', async () => {
    const res = await openai().chat.completions.create({ model: NOVA, ...markedChat });
    const sent = h.fake.requests[0]!;
    expect(sent.modelId).to.equal('us.amazon.nova-pro-v1:0');
    expect(sent.breakpoints).to.deep.equal(['system[1]', 'messages[0].content[1]']);
    expect(JSON.stringify((sent.body.toolConfig as { tools: unknown[] }).tools)).to.not.include('cachePoint');
    expect(res.usage!.prompt_tokens_details!.cached_tokens).to.equal(READ);
  });
});
