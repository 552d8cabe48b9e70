import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import type { TestGateway } from '../../helpers/gateway.js';
import { startKitUpstreams, startScenarioGateway, type KitUpstreams } from '../../kit/routing-gateway.js';

const CHAT = 'openai/gpt-4.1-mini';
const CLAUDE = 'anthropic/claude-haiku-5-5';
const AUTO = 'anthropic/claude-sonnet-5-5';
const GEMINI = 'google/gemini-3.8-flash';
const EPHEMERAL = { type: 'ephemeral' };
// Haiku 5.5 prices (gateway.yaml): prompt, completion, cache read, cache write per token.
const PRICE = { prompt: 1e-7, completion: 5e-7, read: 1e-8, write: 1.25e-7 };
/** A system prompt over the 1024-token minimum of Sonnet (about 4,200 characters). */
const LONG_SYSTEM = 'You are a meticulous assistant for a travel agency. '.repeat(84);

/** The Anthropic answer with prompt-cache usage: 10 uncached, 2000 read, 500 written, 9 output tokens. */
const CACHE_USAGE = { input_tokens: 10, cache_read_input_tokens: 2000, cache_creation_input_tokens: 500, output_tokens: 9 };
function withCacheUsage(data: Record<string, unknown>): Record<string, unknown> {
  if (data.type === 'message') return { ...data, usage: CACHE_USAGE };
  if (data.type === 'message_start') return { ...data, message: { ...(data.message as object), usage: { ...CACHE_USAGE, output_tokens: 1 } } };
  if (data.type === 'message_delta') return { ...data, usage: { output_tokens: 9 } };
  return data;
}
const EXPECTED_COST = 10 * PRICE.prompt + 2000 * PRICE.read + 500 * PRICE.write + 9 * PRICE.completion;

describe('e2e/cache: provider prompt caching end to end (official SDKs, fake-upstream kit)', function () {
  this.timeout(30_000);
  let kit: KitUpstreams;
  let gw: TestGateway;
  let openai: OpenAI;
  let anthropic: Anthropic;

  before(async () => {
    kit = await startKitUpstreams();
    gw = await startScenarioGateway(kit, { models: { [AUTO]: { prompt_cache: 'auto' } } });
    openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0 });
  });
  after(async () => {
    await gw?.close();
    await kit?.close();
  });
  beforeEach(() => kit.reset());
  afterEach(() => expect(kit.violations(), 'requests a provider would have refused').to.deep.equal([]));

  /** Chat messages with LiteLLM-style breakpoints on a system part, a user part and a tool. */
  const markedChat = {
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'Long shared instructions.', cache_control: EPHEMERAL }] },
      { role: 'user', content: [{ type: 'text', text: 'Shared document.', cache_control: { type: 'ephemeral', ttl: '1h' } }, { type: 'text', text: 'What is the capital of France?' }] },
    ],
    tools: [{ type: 'function', function: { name: 'lookup', description: 'Looks up a city.', parameters: { type: 'object', properties: { city: { type: 'string' } } } }, cache_control: EPHEMERAL }],
    tool_choice: 'none',
  } as unknown as Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, 'model'>;

  it('chat -> Anthropic: cache_control on system, content parts and tools arrives as Anthropic breakpoints', async () => {
    await openai.chat.completions.create({ model: CLAUDE, ...markedChat });
    const sent = kit.anthropic.requests.at(-1)!.body as { system: unknown; messages: Array<{ content: unknown[] }>; tools: Array<Record<string, unknown>> };
    expect(sent.system).to.deep.equal([{ type: 'text', text: 'Long shared instructions.', cache_control: EPHEMERAL }]);
    expect(sent.messages[0]!.content).to.deep.equal([
      { type: 'text', text: 'Shared document.', cache_control: { type: 'ephemeral', ttl: '1h' } },
      { type: 'text', text: 'What is the capital of France?' },
    ]);
    expect(sent.tools[0]!.cache_control).to.deep.equal(EPHEMERAL);
  });

  it('chat -> OpenAI: cache_control is dropped (not refused), prompt_cache_key passes through', async () => {
    const answer = await openai.chat.completions.create({ model: CHAT, ...markedChat, prompt_cache_key: 'tenant-7' } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect(answer.choices[0]!.message.content).to.be.a('string');
    const sent = kit.openai.requests.at(-1)!;
    expect(sent.raw.toString()).not.to.include('cache_control');
    expect(sent.body.prompt_cache_key).to.equal('tenant-7');
    // Translated (a budget caps the call): the same.
    await openai.chat.completions.create({ model: CHAT, ...markedChat, prompt_cache_key: 'tenant-7', max_budget_usd: 1 } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    const translated = kit.openai.requests.at(-1)!;
    expect(translated.raw.toString()).not.to.include('cache_control');
    expect(translated.body.prompt_cache_key).to.equal('tenant-7');
  });

  it('chat -> Gemini: cache_control is dropped; cachedContentTokenCount reads back as cached_tokens', async () => {
    kit.gemini.enqueue({ transformData: (d) => (d.usageMetadata ? { ...d, usageMetadata: { ...(d.usageMetadata as object), cachedContentTokenCount: 30 } } : d) });
    const answer = await openai.chat.completions.create({ model: GEMINI, ...markedChat, tool_choice: undefined });
    expect(kit.gemini.requests.at(-1)!.raw.toString()).not.to.include('cache_control');
    expect(answer.usage!.prompt_tokens_details!.cached_tokens).to.equal(30);
  });

  it('messages -> Anthropic keeps every breakpoint, passed through and translated', async () => {
    const ask = {
      model: CLAUDE, max_tokens: 100,
      system: [{ type: 'text' as const, text: 'Shared.', cache_control: { type: 'ephemeral' as const } }],
      tools: [{ name: 'lookup', input_schema: { type: 'object' as const, properties: {} }, cache_control: { type: 'ephemeral' as const } }],
      tool_choice: { type: 'none' as const },
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'Doc.', cache_control: { type: 'ephemeral' as const, ttl: '1h' as const } }, { type: 'text' as const, text: 'Question?' }] }],
    };
    await anthropic.messages.create(ask);
    // A budget makes the gateway translate the call (its output limit applies).
    await anthropic.messages.create({ ...ask, max_budget_usd: 1 } as Anthropic.MessageCreateParamsNonStreaming);
    for (const sent of kit.anthropic.requests) {
      const body = sent.body as { system: Array<Record<string, unknown>>; tools: Array<Record<string, unknown>>; messages: Array<{ content: Array<Record<string, unknown>> }> };
      expect(body.system[0]!.cache_control).to.deep.equal(EPHEMERAL);
      expect(body.tools[0]!.cache_control).to.deep.equal(EPHEMERAL);
      expect(body.messages[0]!.content[0]!.cache_control).to.deep.equal({ type: 'ephemeral', ttl: '1h' });
      expect(body.messages[0]!.content[1]!.cache_control).to.equal(undefined);
    }
    expect(kit.anthropic.requests).to.have.length(2);
  });

  it('responses -> Anthropic: cache_control on input parts and instructions-like system items arrives', async () => {
    await openai.responses.create({
      model: CLAUDE, store: false,
      input: [
        { role: 'developer', content: [{ type: 'input_text', text: 'Shared rules.', cache_control: EPHEMERAL }] },
        { role: 'user', content: [{ type: 'input_text', text: 'Doc.', cache_control: EPHEMERAL }, { type: 'input_text', text: 'Question?' }] },
      ],
    } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming);
    const body = kit.anthropic.requests.at(-1)!.body as { system: unknown; messages: Array<{ content: Array<Record<string, unknown>> }> };
    expect(body.system).to.deep.equal([{ type: 'text', text: 'Shared rules.', cache_control: EPHEMERAL }]);
    expect(body.messages[0]!.content[0]!.cache_control).to.deep.equal(EPHEMERAL);
  });

  it('reports prompt-cache usage in each surface\'s own fields and prices it with the cache prices', async () => {
    const ask = [{ role: 'user' as const, content: 'What is the capital of France?' }];
    kit.anthropic.enqueue({ transformData: withCacheUsage });
    const chat = await openai.chat.completions.create({ model: CLAUDE, messages: ask }).withResponse();
    expect(chat.data.usage!.prompt_tokens).to.equal(2510);
    expect(chat.data.usage!.prompt_tokens_details!.cached_tokens).to.equal(2000);
    expect((chat.data.usage as unknown as { cache_creation_input_tokens: number }).cache_creation_input_tokens).to.equal(500);
    expect(Number(chat.response.headers.get('x-gateway-cost'))).to.be.closeTo(EXPECTED_COST, 1e-12);

    kit.anthropic.enqueue({ transformData: withCacheUsage });
    const messages = await anthropic.messages.create({ model: CLAUDE, max_tokens: 100, messages: ask, max_budget_usd: 1 } as Anthropic.MessageCreateParamsNonStreaming);
    expect(messages.usage.input_tokens).to.equal(10);
    expect(messages.usage.cache_read_input_tokens).to.equal(2000);
    expect(messages.usage.cache_creation_input_tokens).to.equal(500);

    kit.anthropic.enqueue({ transformData: withCacheUsage });
    const responses = await openai.responses.create({ model: CLAUDE, input: 'What is the capital of France?', store: false });
    expect(responses.usage!.input_tokens).to.equal(2510);
    expect(responses.usage!.input_tokens_details.cached_tokens).to.equal(2000);

    // Streamed through chat: the usage chunk carries the same fields and cost.
    kit.anthropic.enqueue({ transformData: withCacheUsage });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of await openai.chat.completions.create({ model: CLAUDE, messages: ask, stream: true, stream_options: { include_usage: true } })) if (chunk.usage) usage = chunk.usage;
    expect(usage!.prompt_tokens_details!.cached_tokens).to.equal(2000);
    expect((usage as unknown as { cost: number }).cost).to.be.closeTo(EXPECTED_COST, 1e-12);
  });

  it('prompt_cache: auto puts breakpoints on the system prompt and tool list of long prefixes only', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }, { type: 'function' as const, function: { name: 'book', parameters: { type: 'object', properties: {} } } }];
    await openai.chat.completions.create({ model: AUTO, messages: [{ role: 'system', content: LONG_SYSTEM }, { role: 'user', content: 'Hi' }], tools, tool_choice: 'none' });
    const translated = kit.anthropic.requests.at(-1)!.body as { system: unknown; tools: Array<Record<string, unknown>> };
    expect(translated.system).to.deep.equal([{ type: 'text', text: LONG_SYSTEM, cache_control: EPHEMERAL }]);
    expect(translated.tools.map((t) => t.cache_control)).to.deep.equal([undefined, EPHEMERAL]);

    // Same format (passed through as sent): the client's body gets the same breakpoints.
    await anthropic.messages.create({ model: AUTO, max_tokens: 50, system: LONG_SYSTEM, messages: [{ role: 'user', content: 'Hi' }] });
    expect((kit.anthropic.requests.at(-1)!.body as { system: unknown }).system).to.deep.equal([{ type: 'text', text: LONG_SYSTEM, cache_control: EPHEMERAL }]);

    // A short prefix: nothing placed. A client's own breakpoint: left as the client set it.
    await openai.chat.completions.create({ model: AUTO, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] });
    expect((kit.anthropic.requests.at(-1)!.body as { system: unknown }).system).to.equal('Be brief.');
    await anthropic.messages.create({ model: AUTO, max_tokens: 50, system: LONG_SYSTEM, messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral' } }] }] });
    expect((kit.anthropic.requests.at(-1)!.body as { system: unknown }).system).to.equal(LONG_SYSTEM);
    // Models without prompt_cache: auto are untouched.
    await openai.chat.completions.create({ model: CLAUDE, messages: [{ role: 'system', content: LONG_SYSTEM }, { role: 'user', content: 'Hi' }] });
    expect((kit.anthropic.requests.at(-1)!.body as { system: unknown }).system).to.equal(LONG_SYSTEM);
  });
});
