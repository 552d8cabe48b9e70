/**
 * Streaming guarantees across every client format and upstream dialect: events are translated as
 * they arrive (the first reaches the client while the upstream still holds its stream open), tool
 * arguments streamed as partial JSON arrive complete, the upstream is always asked for usage, and
 * a client that goes away aborts the upstream request.
 */
import { expect } from 'chai';
import type { TestGateway } from '../../helpers/gateway.js';
import { makeOpenAiClient } from './support/chat-client.js';
import { cell, useTextGateway } from './support/harness.js';
import { makeAnthropicClient } from './support/messages-client.js';
import { ANSWERS, DIALECT_MODELS, TEXT_QUESTION, TOOL_ARGUMENTS, TOOL_QUESTION, WEATHER_TOOL } from './support/scenario.js';

type Client = 'chat' | 'responses' | 'messages';
type Event = Record<string, unknown>;

/** Opens a raw SDK stream of the client's own events (no accumulator). */
async function openStream(gw: TestGateway, client: Client, model: string, withTool: boolean, signal?: AbortSignal): Promise<AsyncIterable<Event>> {
  const question = withTool ? TOOL_QUESTION : TEXT_QUESTION;
  if (client === 'chat') {
    const tools = withTool ? [{ type: 'function' as const, function: { ...WEATHER_TOOL } }] : undefined;
    return (await makeOpenAiClient(gw).chat.completions.create({ model, messages: [{ role: 'user', content: question }], stream: true, ...(tools ? { tools } : {}) }, { signal })) as unknown as AsyncIterable<Event>;
  }
  if (client === 'responses') {
    const tools = withTool ? [{ type: 'function' as const, ...WEATHER_TOOL, strict: false }] : undefined;
    return (await makeOpenAiClient(gw).responses.create({ model, input: question, stream: true, ...(tools ? { tools } : {}) }, { signal })) as unknown as AsyncIterable<Event>;
  }
  const tools = withTool ? [{ name: WEATHER_TOOL.name, description: WEATHER_TOOL.description, input_schema: WEATHER_TOOL.parameters }] : undefined;
  return (await makeAnthropicClient(gw).messages.create({ model, max_tokens: 512, messages: [{ role: 'user', content: question }], stream: true, ...(tools ? { tools } : {}) }, { signal })) as unknown as AsyncIterable<Event>;
}

/** The tool-call argument fragments of a raw client stream, in the client's own grammar. */
function argumentFragments(client: Client, events: Event[]): string[] {
  if (client === 'chat') {
    return events.flatMap((e) => ((e.choices as Event[] | undefined) ?? []).flatMap((c) => ((c.delta as Event).tool_calls as Event[] | undefined) ?? []))
      .map((tc) => ((tc.function as Event | undefined)?.arguments as string | undefined) ?? '');
  }
  if (client === 'responses') return events.filter((e) => e.type === 'response.function_call_arguments.delta').map((e) => e.delta as string);
  return events.filter((e) => e.type === 'content_block_delta' && (e.delta as Event).type === 'input_json_delta').map((e) => (e.delta as Event).partial_json as string);
}

/** The complete arguments a client format states once the call is done (where it has such a field). */
function finalArguments(client: Client, events: Event[]): unknown[] {
  if (client === 'responses') {
    return [
      ...events.filter((e) => e.type === 'response.function_call_arguments.done').map((e) => JSON.parse(e.arguments as string) as unknown),
      ...events.filter((e) => e.type === 'response.output_item.done' && (e.item as Event).type === 'function_call').map((e) => JSON.parse((e.item as Event).arguments as string) as unknown),
    ];
  }
  return [];
}

async function waitFor(condition: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const CLIENTS: Client[] = ['chat', 'responses', 'messages'];

describe('streaming across surfaces and dialects', () => {
  const h = useTextGateway();

  describe('incremental delivery', () => {
    for (const client of CLIENTS) {
      for (const { dialect, model } of DIALECT_MODELS) {
        cell(h, `${client} client <- ${dialect}: the first event arrives while the upstream holds its stream open`, async () => {
          let release!: () => void;
          const held = new Promise<void>((resolve) => (release = resolve));
          let timedOut = false;
          // Never deadlock: if nothing reaches the client, the fake is let go after 3 s and the test fails.
          const safety = setTimeout(() => ((timedOut = true), release()), 3000);
          h.fakes.byDialect[dialect]!.enqueue({ fixture: 'text', holdUntil: held, holdAfterEvents: 1 });
          const events: Event[] = [];
          let firstWhileHeld: boolean | undefined;
          for await (const event of await openStream(h.gw, client, model, false)) {
            if (firstWhileHeld === undefined) {
              firstWhileHeld = !timedOut;
              release();
            }
            events.push(event);
          }
          clearTimeout(safety);
          expect(firstWhileHeld, 'a client event arrived before the upstream stream finished').to.equal(true);
          expect(events.length).to.be.greaterThan(2);
        });
      }
    }
  });

  describe('tool-call arguments streamed as partial JSON', () => {
    for (const client of CLIENTS) {
      for (const { dialect, model } of DIALECT_MODELS) {
        cell(h, `${client} client <- ${dialect}: fragments join into the complete arguments`, async () => {
          h.fakes.byDialect[dialect]!.enqueue({ fixture: 'tool-call' });
          const events: Event[] = [];
          for await (const event of await openStream(h.gw, client, model, true)) events.push(event);
          const fragments = argumentFragments(client, events);
          expect(fragments.join(''), 'arguments never arrive empty').to.not.equal('');
          expect(JSON.parse(fragments.join(''))).to.deep.equal(TOOL_ARGUMENTS);
          for (const args of finalArguments(client, events)) expect(args).to.deep.equal(TOOL_ARGUMENTS);
        });
      }
    }
  });

  describe('usage is always asked of the upstream', () => {
    cell(h, 'chat client without stream_options: the chat upstream is asked for usage, the client gets no usage chunk', async () => {
      h.fakes.chat.enqueue({ fixture: 'text' });
      const chunks: Event[] = [];
      for await (const chunk of await openStream(h.gw, 'chat', 'openai/gpt-4.1-mini', false)) chunks.push(chunk);
      expect((h.fakes.chat.last().body.stream_options as Event | undefined)?.include_usage).to.equal(true);
      expect(chunks.filter((c) => c.usage !== null && c.usage !== undefined), 'usage chunks the client did not ask for').to.deep.equal([]);
      expect(chunks.map((c) => ((c.choices as Event[])[0]?.delta as Event | undefined)?.content ?? '').join('')).to.equal(ANSWERS.text);
    });

    cell(h, 'chat client with include_usage false: the upstream is still asked for usage', async () => {
      h.fakes.chat.enqueue({ fixture: 'text' });
      const stream = await makeOpenAiClient(h.gw).chat.completions.create({ model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: TEXT_QUESTION }], stream: true, stream_options: { include_usage: false } });
      for await (const chunk of stream) expect(chunk.usage ?? null).to.equal(null);
      expect((h.fakes.chat.last().body.stream_options as Event | undefined)?.include_usage).to.equal(true);
    });

    for (const client of ['responses', 'messages'] as const) {
      cell(h, `${client} client -> openai-chat upstream: include_usage is sent`, async () => {
        h.fakes.chat.enqueue({ fixture: 'text' });
        for await (const _ of await openStream(h.gw, client, 'openai/gpt-4.1-mini', false)) void _;
        expect((h.fakes.chat.last().body.stream_options as Event | undefined)?.include_usage).to.equal(true);
      });
    }
  });

  describe('client abort reaches the upstream', () => {
    for (const { dialect, model } of DIALECT_MODELS) {
      cell(h, `chat client <- ${dialect}: leaving a stalled stream closes the upstream connection`, async () => {
        const fake = h.fakes.byDialect[dialect]!;
        fake.enqueue({ fixture: 'text', stallAfterEvents: 2 });
        const controller = new AbortController();
        const stream = await openStream(h.gw, 'chat', model, false, controller.signal);
        const iterator = stream[Symbol.asyncIterator]();
        await iterator.next();
        controller.abort();
        await iterator.next().catch(() => undefined);
        await within(fake.last().abortedSignal, 5000, 'the upstream saw the connection close');
        expect(fake.last().aborted).to.equal(true);
      });

      cell(h, `messages client <- ${dialect}: aborting before the upstream answered closes the upstream connection`, async () => {
        const fake = h.fakes.byDialect[dialect]!;
        fake.enqueue({ hang: true });
        const controller = new AbortController();
        const pending = makeAnthropicClient(h.gw).messages.create({ model, max_tokens: 256, messages: [{ role: 'user', content: TEXT_QUESTION }] }, { signal: controller.signal }).catch((e: unknown) => e);
        await waitFor(() => fake.requests.length === 1, 5000, 'the request to reach the fake');
        controller.abort();
        expect(await pending).to.be.instanceOf(Error);
        await within(fake.last().abortedSignal, 5000, 'the upstream saw the connection close');
        expect(fake.last().aborted).to.equal(true);
      });
    }
  });
});
