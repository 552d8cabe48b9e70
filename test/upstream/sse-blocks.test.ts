import { expect } from 'chai';
import { createParser } from 'eventsource-parser';
import { StringDecoder } from 'node:string_decoder';
import { writeSseFrame } from '../../src/sse-frame.js';
import { splitSseBlocks } from '../../src/upstream/sse-blocks.js';
import { readSseBlocks, readSseText } from '../../src/upstream/sse-readers.js';
import { UpstreamBody } from '../../src/upstream/upstream-body.js';
import type { SseFrame } from '../../src/codecs/codec.js';
import { upstreamBodyOf } from '../helpers/upstream-body-of.js';

async function* bytesOf(text: string, cuts: number[]): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > at) yield bytes.subarray(at, cut);
    at = cut;
  }
}

async function collect(reader: (body: AsyncIterable<Uint8Array>) => AsyncIterable<SseFrame[]>, text: string, cuts: number[] = []): Promise<SseFrame[]> {
  const out: SseFrame[] = [];
  for await (const batch of reader(bytesOf(text, cuts))) out.push(...batch);
  return out;
}

/** The reference: the events the spec's parser (eventsource-parser) reads, one batch per read. */
async function* readSseBatches(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseFrame[]> {
  let pending: SseFrame[] = [];
  const parser = createParser({ onEvent: (e) => pending.push(e.event ? { event: e.event, data: e.data } : { data: e.data }) });
  const decoder = new StringDecoder('utf8');
  for await (const chunk of body) {
    parser.feed(decoder.write(Buffer.from(chunk)));
    if (pending.length > 0) {
      yield pending;
      pending = [];
    }
  }
  parser.feed(`${decoder.end()}\n\n`);
  if (pending.length > 0) yield pending;
}

/** What a client parsing the frames' wire text would see (event name and data only). */
const seen = (frames: SseFrame[]) => frames.map((f) => ({ event: f.event, data: f.data }));

const STREAM = [
  'data: {"id":"c1","model":"gpt-x","choices":[{"delta":{"content":"héllo 👋"}}]}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"ü"}}\n\n',
  ': keep-alive comment\n\n',
  'id: 7\nretry: 100\ndata: {"a":1}\n\n',
  'data: line one\ndata: line two\n\n',
  'data:{"nospace":true}\n\n',
  'event: ping\ndata: \n\n',
  'data: [DONE]\n\n',
].join('');

/** The text reader's batches cut into frames (what the passthrough's identity stage reads from them). */
async function* framesOfText(body: UpstreamBody): AsyncGenerator<SseFrame[]> {
  for await (const [text] of readSseText(body)) {
    // Each batch is whole events: nothing is left over.
    const { frames, rest } = splitSseBlocks(text);
    expect(rest.replace(/\n/g, '')).to.equal('');
    if (frames.length > 0) yield frames;
  }
}

/**
 * Both readers over an upstream body fed piece by piece (each piece one network read): the
 * frame reader (readSseBlocks) and the text reader (readSseText) cut into frames.
 */
const INPUTS: ReadonlyArray<[string, (body: AsyncIterable<Uint8Array>) => AsyncIterable<SseFrame[]>]> = [
  ['an upstream body', (body) => readSseBlocks(upstreamBodyOf(body))],
  ['an upstream body, as text', (body) => framesOfText(upstreamBodyOf(body))],
];

describe('upstream/sse-blocks', () => {
  for (const [input, readSseBlocks] of INPUTS) describe(`#readSseBlocks from ${input}`, () => {
    it('reads the same events as the spec parser (eventsource-parser) whatever the read boundaries', async () => {
      const expected = seen(await collect(readSseBatches, STREAM));
      expect(expected).to.have.length(7);
      const length = Buffer.byteLength(STREAM);
      for (let cut = 1; cut < length; cut += 7) {
        expect(seen(await collect(readSseBlocks, STREAM, [cut, cut + 3])), `cut at ${cut}`).to.deep.equal(expected);
      }
    });

    it('keeps the exact wire text of common events and writes it back unchanged', async () => {
      const frames = await collect(readSseBlocks, STREAM, [5, 100]);
      expect(frames[0]!.raw).to.equal('data: {"id":"c1","model":"gpt-x","choices":[{"delta":{"content":"héllo 👋"}}]}\n\n');
      expect(writeSseFrame(frames[1]!)).to.equal('event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"ü"}}\n\n');
      // Unusual blocks are rebuilt from their fields (comments and id/retry are not forwarded).
      expect(frames[2]).to.deep.equal({ data: '{"a":1}' });
      expect(frames[3]).to.deep.equal({ data: 'line one\nline two' });
      expect(writeSseFrame(frames[3]!)).to.equal('data: line one\ndata: line two\n\n');
    });

    it('accepts CRLF and CR line endings', async () => {
      const crlf = 'data: {"a":1}\r\n\r\nevent: x\r\ndata: {"b":2}\r\n\r\n';
      expect(seen(await collect(readSseBlocks, crlf, [14, 15]))).to.deep.equal([{ event: undefined, data: '{"a":1}' }, { event: 'x', data: '{"b":2}' }]);
      expect(seen(await collect(readSseBlocks, 'data: 1\r\rdata: 2\r\r'))).to.deep.equal([{ event: undefined, data: '1' }, { event: undefined, data: '2' }]);
    });

    it('reads CRLF and CR streams as eventsource-parser does at every read boundary (a CRLF split across reads is one line end)', async () => {
      for (const text of ['data: a\r\ndata: b\r\n\r\nevent: x\r\ndata: c\r\n\r\n', 'data: a\rdata: b\r\revent: x\rdata: c\r\r']) {
        const expected = seen(await collect(readSseBatches, text));
        expect(expected).to.deep.equal([{ event: undefined, data: 'a\nb' }, { event: 'x', data: 'c' }]);
        for (let cut = 1; cut < text.length; cut++) {
          expect(seen(await collect(readSseBlocks, text, [cut])), `${JSON.stringify(text)} cut at ${cut}`).to.deep.equal(expected);
        }
      }
    });

    it('drops a byte order mark at the start of the stream, as the spec says', async () => {
      const withBom = '\uFEFFdata: {"a":1}\n\n';
      const expected = [{ event: undefined, data: '{"a":1}' }];
      // The BOM's three bytes split across reads, too.
      expect(seen(await collect(readSseBlocks, withBom, [1, 2]))).to.deep.equal(expected);
      expect(seen(await collect(readSseBlocks, withBom))).to.deep.equal(expected);
      // Only the first: a BOM later in the stream is data.
      expect(seen(await collect(readSseBlocks, `${withBom}data: \uFEFFx\n\n`, [1]))).to.deep.equal([...expected, { event: undefined, data: '\uFEFFx' }]);
    });

    it('reads an empty event name as no name, as the spec parser does', async () => {
      const text = 'event: \ndata: {"a":1}\n\n';
      expect(seen(await collect(readSseBlocks, text))).to.deep.equal(seen(await collect(readSseBatches, text)));
      expect(seen(await collect(readSseBlocks, text))).to.deep.equal([{ event: undefined, data: '{"a":1}' }]);
    });

    it('hands over an event the stream ended inside (a decoder must see a cut stream)', async () => {
      expect(seen(await collect(readSseBlocks, 'data: {"a":1}\n\ndata: {"trunc'))).to.deep.equal([{ event: undefined, data: '{"a":1}' }, { event: undefined, data: '{"trunc' }]);
    });

    it('yields one batch per read that completes events', async () => {
      const batches: number[] = [];
      for await (const b of readSseBlocks(bytesOf('data: 1\n\ndata: 2\n\ndata: 3\n\n', [18]))) batches.push(b.length);
      expect(batches).to.deep.equal([2, 1]);
    });
  });

  describe('#readSseBlocks from an upstream body (the production path), driven as undici drives its handler', () => {
    /** An UpstreamBody whose answer has started, with what it asked of the connection. */
    function answeredBody(): { body: UpstreamBody; data(text: string): boolean; resumed(): number; aborted(): unknown } {
      let resumes = 0;
      let abortedWith: unknown;
      const body = new UpstreamBody(() => undefined, () => undefined, undefined);
      body.onConnect((reason) => { abortedWith = reason ?? 'aborted'; });
      body.onHeaders(200, [], () => { resumes++; });
      return { body, data: (text) => body.onData(Buffer.from(text)), resumed: () => resumes, aborted: () => abortedWith };
    }
    const turn = () => new Promise((resolve) => setImmediate(resolve));

    it('fails the next read with the error of the body, after the events that came before it', async () => {
      const { body, data } = answeredBody();
      const reader = readSseBlocks(body)[Symbol.asyncIterator]();
      data('data: 1\n\n');
      expect(seen((await reader.next()).value as SseFrame[])).to.deep.equal([{ event: undefined, data: '1' }]);
      const failure = new Error('socket hang up');
      setImmediate(() => body.onError(failure));
      let caught: unknown;
      await reader.next().catch((e: unknown) => { caught = e; });
      expect(caught).to.equal(failure);
    });

    it('fails a waiting read when the body is discarded, instead of waiting forever', async () => {
      const { body, aborted } = answeredBody();
      const reader = readSseBlocks(body)[Symbol.asyncIterator]();
      setImmediate(() => body.destroy());
      let caught: unknown;
      await reader.next().catch((e: unknown) => { caught = e; });
      expect(caught).to.be.instanceOf(Error);
      expect(aborted(), 'the unfinished request is aborted').to.not.equal(undefined);
    });

    it('aborts the request when the consumer stops early (return)', async () => {
      const { body, data, aborted } = answeredBody();
      data('data: 1\n\n');
      for await (const batch of readSseBlocks(body)) {
        expect(batch).to.have.length(1);
        break;
      }
      expect(body.destroyed).to.equal(true);
      expect(aborted()).to.not.equal(undefined);
    });

    it('pauses the upstream while a batch waits unread (backpressure), and resumes it at the next read', async () => {
      const { body, data, resumed } = answeredBody();
      const reader = readSseBlocks(body)[Symbol.asyncIterator]();
      expect(data('data: 1\n\n'), 'nothing waits yet').to.equal(true);
      await turn();
      // The first batch waits unread: the next chunk tells undici to pause the connection.
      expect(data('data: 2\n\n')).to.equal(false);
      expect(seen((await reader.next()).value as SseFrame[])).to.deep.equal([{ event: undefined, data: '1' }]);
      expect(seen((await reader.next()).value as SseFrame[])).to.deep.equal([{ event: undefined, data: '2' }]);
      const pending = reader.next();
      expect(resumed(), 'a read that found nothing resumed the connection').to.be.above(0);
      data('data: 3\n\n');
      body.onComplete();
      expect(seen((await pending).value as SseFrame[])).to.deep.equal([{ event: undefined, data: '3' }]);
      expect((await reader.next()).done).to.equal(true);
    });

    it('hands over everything one read brought as one batch, however many chunks it held', async () => {
      const { body, data } = answeredBody();
      const reader = readSseBlocks(body)[Symbol.asyncIterator]();
      // undici hands over each HTTP chunk of one socket read in one synchronous run.
      for (let i = 1; i <= 5; i++) data(`data: ${i}\n\n`);
      body.onComplete();
      const first = await reader.next();
      expect((first.value as SseFrame[]).map((f) => f.data)).to.deep.equal(['1', '2', '3', '4', '5']);
      expect((await reader.next()).done).to.equal(true);
    });
  });

  describe('#splitSseBlocks', () => {
    it('returns the text after the last complete event', () => {
      const { frames, rest } = splitSseBlocks('data: 1\n\n\n\ndata: 2\n\ndata: 3');
      expect(seen(frames)).to.deep.equal([{ event: undefined, data: '1' }, { event: undefined, data: '2' }]);
      expect(rest).to.equal('data: 3');
    });
  });
});
