/**
 * Same-format calls (chat -> openai-chat, responses -> openai-responses, messages ->
 * anthropic-messages) pass through without translation: request fields the gateway does not know
 * reach the provider, and response fields it does not know reach the client, plain and streamed.
 * The request fields used are real provider fields the gateway has no notion of.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { TestGateway } from '../../helpers/gateway.js';
import type { DialectFake, TextDeployments } from '../../kit/text-deployments.js';
import { makeOpenAiClient } from './support/chat-client.js';
import { cell, useTextGateway } from './support/harness.js';
import { makeAnthropicClient } from './support/messages-client.js';
import { ANSWERS, TEXT_QUESTION } from './support/scenario.js';

const TRACE = { region: 'eu-west-1', shard: 7 };
const addTrace = (data: Record<string, unknown>) => ({ ...data, provider_trace: TRACE });
type Loose = Record<string, unknown>;

interface Pair {
  name: string;
  fake: (f: TextDeployments) => DialectFake;
  /** The unknown request field and its value. */
  field: [string, string];
  /** Sends the scenario's text question with the unknown field; returns the body or the stream's events. */
  plain(gw: TestGateway): Promise<{ body: Loose; text: string }>;
  streamed(gw: TestGateway): Promise<Loose[]>;
}

const PAIRS: Pair[] = [
  {
    name: 'openai SDK chat.completions -> openai-chat',
    fake: (f) => f.chat,
    field: ['prompt_cache_key', 'passthrough-chat'],
    plain: async (gw) => {
      const c = await makeOpenAiClient(gw).chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: TEXT_QUESTION }], prompt_cache_key: 'passthrough-chat' });
      return { body: c as unknown as Loose, text: c.choices[0]!.message.content ?? '' };
    },
    streamed: async (gw) => {
      const s = await makeOpenAiClient(gw).chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: TEXT_QUESTION }], prompt_cache_key: 'passthrough-chat', stream: true });
      const out: Loose[] = [];
      for await (const chunk of s) out.push(chunk as unknown as Loose);
      return out;
    },
  },
  {
    name: 'openai SDK responses -> openai-responses',
    fake: (f) => f.responses,
    field: ['prompt_cache_key', 'passthrough-responses'],
    plain: async (gw) => {
      const r = await makeOpenAiClient(gw).responses.create({ model: 'openai-responses/gpt-6.2-sol', input: TEXT_QUESTION, prompt_cache_key: 'passthrough-responses' });
      return { body: r as unknown as Loose, text: r.output_text };
    },
    streamed: async (gw) => {
      const s = await makeOpenAiClient(gw).responses.create({ model: 'openai-responses/gpt-6.2-sol', input: TEXT_QUESTION, prompt_cache_key: 'passthrough-responses', stream: true });
      const out: Loose[] = [];
      for await (const event of s) out.push(event as unknown as Loose);
      return out;
    },
  },
  {
    name: 'anthropic SDK messages -> anthropic-messages',
    fake: (f) => f.anthropic,
    field: ['service_tier', 'standard_only'],
    plain: async (gw) => {
      const m = await makeAnthropicClient(gw).messages.create({ model: 'anthropic/claude-sonnet-5-5', max_tokens: 256, messages: [{ role: 'user', content: TEXT_QUESTION }], service_tier: 'standard_only' });
      return { body: m as unknown as Loose, text: m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('') };
    },
    streamed: async (gw) => {
      const s = await makeAnthropicClient(gw).messages.create({ model: 'anthropic/claude-sonnet-5-5', max_tokens: 256, messages: [{ role: 'user', content: TEXT_QUESTION }], service_tier: 'standard_only', stream: true });
      const out: Loose[] = [];
      for await (const event of s) out.push(event as unknown as Loose);
      return out;
    },
  },
];

describe('same-format passthrough', () => {
  const h = useTextGateway();

  for (const pair of PAIRS) {
    describe(pair.name, () => {
      const [field, value] = pair.field;

      cell(h, `forwards the unknown request field ${field} (plain)`, async () => {
        pair.fake(h.fakes).enqueue({ fixture: 'text' });
        const { text } = await pair.plain(h.gw);
        expect(text).to.equal(ANSWERS.text);
        expect(pair.fake(h.fakes).last().body[field], 'unknown request field at the upstream').to.equal(value);
      });

      cell(h, `forwards the unknown request field ${field} (streamed)`, async () => {
        pair.fake(h.fakes).enqueue({ fixture: 'text' });
        await pair.streamed(h.gw);
        expect(pair.fake(h.fakes).last().body[field], 'unknown request field at the upstream').to.equal(value);
      });

      cell(h, 'returns a response field the gateway does not know (plain)', async () => {
        pair.fake(h.fakes).enqueue({ fixture: 'text', transformData: addTrace });
        const { body, text } = await pair.plain(h.gw);
        expect(text).to.equal(ANSWERS.text);
        expect(body.provider_trace, 'unknown response field at the client').to.deep.equal(TRACE);
      });

      cell(h, 'returns event fields the gateway does not know, event by event (streamed)', async () => {
        pair.fake(h.fakes).enqueue({ fixture: 'text', transformData: addTrace });
        const events = await pair.streamed(h.gw);
        expect(events.length).to.be.greaterThan(3);
        for (const event of events) expect(event.provider_trace, `unknown field on ${JSON.stringify(event).slice(0, 60)}`).to.deep.equal(TRACE);
      });
    });
  }
});

/** The chat fixture stream without its closing `choices: []` usage chunk (an upstream that reports no usage). */
function chatStreamWithoutUsage(): string {
  const events = readFileSync(path.resolve(process.cwd(), 'test/fixtures/text-upstreams/openai-chat/text.sse'), 'utf8').split(/\n\n/);
  return events.filter((e) => e.trim() !== '' && !e.includes('"choices":[],"usage":{')).map((e) => `${e}\n\n`).join('');
}

describe('same-format passthrough: usage on chat streams (SPEC 2.4)', () => {
  const h = useTextGateway();
  const stream = async (includeUsage: boolean) => {
    const s = await makeOpenAiClient(h.gw).chat.completions.create({
      model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: TEXT_QUESTION }], stream: true,
      ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
    });
    const chunks: Loose[] = [];
    for await (const chunk of s) chunks.push(chunk as unknown as Loose);
    return chunks;
  };
  const usageChunks = (chunks: Loose[]) => chunks.filter((c) => c.usage !== null && c.usage !== undefined);
  const textOf = (chunks: Loose[]) => chunks.map((c) => ((c.choices as { delta?: { content?: string } }[])[0]?.delta?.content) ?? '').join('');

  cell(h, 'ends with an estimated usage chunk when the upstream sent none and the client asked for usage', async () => {
    h.fakes.chat.enqueue({ rawAnswer: { contentType: 'text/event-stream', body: chatStreamWithoutUsage() } });
    const chunks = await stream(true);
    expect(textOf(chunks)).to.equal(ANSWERS.text);
    const found = usageChunks(chunks);
    expect(found, 'usage chunks').to.have.length(1);
    const last = chunks[chunks.length - 1]!;
    expect(last, 'the usage chunk is the last one').to.equal(found[0]);
    expect(last.choices).to.deep.equal([]);
    expect(last.object).to.equal('chat.completion.chunk');
    expect(last.model).to.equal('openai/gpt-4.1-mini');
    expect(last.id).to.equal(chunks[0]!.id);
    expect(last.created).to.equal(chunks[0]!.created);
    const usage = last.usage as Loose;
    expect(usage.estimated).to.equal(true);
    expect(usage.prompt_tokens).to.be.a('number').greaterThan(0);
    // "The capital of France is Paris." was delivered: some output was billed.
    expect(usage.completion_tokens).to.be.a('number').greaterThan(0);
    expect(usage.total_tokens).to.equal((usage.prompt_tokens as number) + (usage.completion_tokens as number));
    expect(usage.cost).to.be.a('number').greaterThan(0);
  });

  cell(h, 'adds no usage chunk when the client did not ask for usage', async () => {
    h.fakes.chat.enqueue({ rawAnswer: { contentType: 'text/event-stream', body: chatStreamWithoutUsage() } });
    const chunks = await stream(false);
    expect(textOf(chunks)).to.equal(ANSWERS.text);
    expect(usageChunks(chunks)).to.deep.equal([]);
  });

  cell(h, "passes the upstream's own usage chunk on unchanged (not estimated)", async () => {
    h.fakes.chat.enqueue({ fixture: 'text' });
    const chunks = await stream(true);
    expect(textOf(chunks)).to.equal(ANSWERS.text);
    const found = usageChunks(chunks);
    expect(found, 'usage chunks').to.have.length(1);
    const usage = found[0]!.usage as Loose;
    expect(usage).to.include({ prompt_tokens: 42, completion_tokens: 9, total_tokens: 51 });
    expect(usage).to.not.have.property('estimated');
    expect(found[0]!.id).to.equal('chatcmpl-CZx3mKq8Z2xW9nR4pL6sT1uV0aE5');
  });
});
