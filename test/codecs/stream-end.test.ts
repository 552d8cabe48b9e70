/**
 * The stream-end rule, decoder side, for every upstream dialect and every recorded stream
 * (test/fixtures/text-upstreams): the whole stream decodes without an error; EVERY proper prefix
 * that stops before the format's terminal event ends with an `upstream_stream_truncated` error
 * (never with a finish as if complete); a frame that is not JSON yields an
 * `invalid_upstream_response` error and nothing after it.
 */
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SseFrame } from '../../src/codecs/codec.js';
import type { Conversation, StreamEvent } from '../../src/codecs/internal.js';
import { dialects } from '../../src/compile/registry.js';
import { readSseBlocks } from '../../src/upstream/sse-readers.js';
import { readFixture } from '../kit/fake-upstream.js';
import { upstreamBodyOf } from '../helpers/upstream-body-of.js';

const REQUEST: Conversation = { model: 'test/model', system: [], messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }], stream: true };

/** Index of the frame that completes the stream in each format. */
const TERMINAL: Record<string, (frames: SseFrame[]) => number> = {
  // [DONE], or (for servers that omit it) the usage chunk after the finish_reason.
  'openai-chat': (frames) => frames.findIndex((f) => f.data.includes('"usage"') && !f.data.includes('"usage":null')),
  'anthropic-messages': (frames) => frames.findIndex((f) => f.data.includes('"message_stop"')),
  gemini: (frames) => frames.findIndex((f) => f.data.includes('"finishReason"')),
  'openai-responses': (frames) => frames.findIndex((f) => /"type":\s*"response\.(completed|incomplete|failed)"/.test(f.data)),
  // ConverseStream as the event-stream reader writes it (src/providers/bedrock/event-frames.ts).
  'bedrock-converse': (frames) => frames.findIndex((f) => f.event === 'metadata'),
};

async function framesOf(dialect: string, fixture: string): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  const text = readFixture(dialect, fixture);
  for await (const batch of readSseBlocks(upstreamBodyOf([text]))) frames.push(...batch);
  return frames;
}

function decodeAll(dialect: string, frames: SseFrame[]): StreamEvent[] {
  const decoder = dialects.get(dialect)!.createStreamDecoder(REQUEST);
  return [...frames.flatMap((f) => decoder.decode(f)), ...decoder.end()];
}

describe('codecs: the stream-end rule of every dialect decoder', () => {
  for (const dialect of dialects.keys()) {
    const fixtures = readdirSync(resolve(process.cwd(), 'test/fixtures/text-upstreams', dialect)).filter((f) => f.endsWith('.sse'));
    describe(dialect, () => {
      for (const fixture of fixtures) {
        it(`${fixture}: whole stream -> no error; every prefix before the terminal event -> upstream_stream_truncated`, async () => {
          const frames = await framesOf(dialect, fixture);
          const terminal = TERMINAL[dialect]!(frames);
          expect(terminal, 'the fixture has a terminal event').to.be.greaterThan(-1);
          const whole = decodeAll(dialect, frames);
          expect(whole.filter((e) => e.type === 'error')).to.deep.equal([]);
          expect(whole.map((e) => e.type)).to.include('finish');
          for (let k = 0; k < terminal; k++) {
            const events = decodeAll(dialect, frames.slice(0, k));
            const last = events.at(-1);
            expect(last, `prefix of ${k} frames`).to.deep.include({ type: 'error', code: 'upstream_stream_truncated', status: 502 });
            expect(events.filter((e) => e.type === 'error'), `prefix of ${k} frames: one error`).to.have.length(1);
          }
        });
        it(`${fixture}: a frame that is not JSON -> invalid_upstream_response and nothing after`, async () => {
          const frames = await framesOf(dialect, fixture);
          const at = Math.min(2, frames.length - 1);
          const broken = [...frames.slice(0, at), { ...(frames[at]!.event ? { event: frames[at]!.event } : {}), data: '{"type": "content_block_delta", "delta": {"te' }, ...frames.slice(at)];
          const events = decodeAll(dialect, broken);
          expect(events.at(-1)).to.deep.include({ type: 'error', code: 'invalid_upstream_response' });
          expect(events.filter((e) => e.type === 'error')).to.have.length(1);
        });
      }
      it('an empty stream (a 200 with no events) -> upstream_stream_truncated', () => {
        expect(decodeAll(dialect, []).at(-1)).to.deep.include({ type: 'error', code: 'upstream_stream_truncated' });
      });
      it('keep-alive frames without data are no error', async () => {
        const frames = await framesOf(dialect, 'text.sse');
        const withPings = frames.flatMap((f) => [{ data: '' }, f]);
        expect(decodeAll(dialect, withPings).filter((e) => e.type === 'error')).to.deep.equal([]);
      });
    });
  }
});
