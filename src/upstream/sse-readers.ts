import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { SseFrame } from '../codecs/codec.js';
import { splitSseBlocks } from './sse-blocks.js';
import { UpstreamBody, type ChunkSink } from './upstream-body.js';

/**
 * The gateway's one reader of upstream server-sent events (translated and same-format streams):
 * whole SSE events that keep their wire text. A passthrough forwards most events untouched, so
 * each frame carries `raw` (its exact bytes as text, blank line included) and is written back as
 * it came, never re-serialized; a decoder reads only `event` and `data`. Events are
 * found by a search for the blank line, not by a character-by-character parse: the common
 * event (`data: <one line>` with an optional `event:` line) is read by slicing; anything else
 * (comments, `id:`/`retry:` fields, data over several lines) goes through the full field
 * rules of the SSE spec (https://html.spec.whatwg.org/multipage/server-sent-events.html). Any
 * line ending is accepted: a stream with CR is normalized to LF first. One batch per network
 * read, so a proxy writes what one read brought in one write.
 */
export function readSseBlocks(body: AsyncIterable<Uint8Array | string>): AsyncIterableIterator<SseFrame[]> {
  return readerOf(body, (text) => {
    const { frames } = splitSseBlocks(text);
    return frames.length > 0 ? frames : undefined;
  });
}

/**
 * The same events as readSseBlocks, left as text: each batch is the wire text of the whole
 * events one network read completed (line endings normalized to LF, a leading byte order mark
 * dropped), as a one-element array. A passthrough walks that text itself and forwards runs of
 * events it need not read as one stretch of text, instead of an object and two strings per
 * event (identity-stage.ts).
 */
export function readSseText(body: AsyncIterable<Uint8Array | string>): AsyncIterableIterator<readonly [string]> {
  return readerOf(body, (text) => [text] as const);
}

// Upstream bodies hand over their chunks themselves; any other iterable (tests) is read through a Readable.
function readerOf<B>(body: AsyncIterable<Uint8Array | string>, toBatch: (text: string) => B | undefined): SseReader<B> {
  if (body instanceof UpstreamBody) return new BodySseReader(body, toBatch);
  return new ReadableSseReader(body instanceof Readable ? body : Readable.from(body, { objectMode: true }), toBatch);
}

/**
 * Text of a stream cut at whole events as chunks arrive: decodes UTF-8 across chunk
 * boundaries, drops a leading byte order mark, normalizes CR and CRLF, and keeps what follows
 * the last complete event for the next chunk.
 */
class SseBlockBuffer {
  private readonly decoder = new StringDecoder('utf8');
  private buffered = '';
  private started = false;

  /** The text of the events a chunk completes, up to and including the last blank line ('' when none). */
  push(chunk: Uint8Array | string): string {
    let text = this.buffered + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk as Buffer));
    if (!this.started && text !== '') {
      // The spec drops one byte order mark at the start of the stream.
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    // A CR that ends the read may be the first half of a CRLF: it waits for the next read, or
    // normalized alone it would end its line twice (a blank line: an event split in two).
    const heldCr = text.charCodeAt(text.length - 1) === 13;
    if (heldCr) text = text.slice(0, -1);
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    const last = text.lastIndexOf('\n\n');
    const complete = last < 0 ? '' : text.slice(0, last + 2);
    const rest = last < 0 ? text : text.slice(last + 2);
    this.buffered = heldCr ? `${rest}\r` : rest;
    return complete;
  }

  /** At the end of the stream: an event it ended inside of, completed ('' when none). */
  end(): string {
    const left = (this.buffered + this.decoder.end()).replace(/\r\n?/g, '\n');
    this.buffered = '';
    // The stream ended inside an event: the spec dispatches nothing for it, but a decoder must
    // see it to tell a cut stream from a finished one (its data is what arrived).
    return left.trim() !== '' ? `${left}\n\n` : '';
  }
}

/**
 * An iterator of batches of whole events: one batch per network read (however many HTTP chunks
 * it held), so a proxy writes what one read brought in one write. Nothing more is read while a
 * batch waits unread (backpressure reaches the upstream); a failure of the body fails the next
 * read; `return()` (a consumer that stops early) discards the body. Subclasses feed it from
 * their kind of body.
 */
abstract class SseReader<B> implements AsyncIterableIterator<B> {
  protected readonly buffer = new SseBlockBuffer();
  protected readonly ready: B[] = [];
  protected ended = false;
  protected failure: { error: unknown } | undefined;
  private waiting: { resolve: (r: IteratorResult<B>) => void; reject: (e: unknown) => void } | undefined;

  /** `toBatch` makes a batch of the text of whole events (undefined: nothing to hand over). */
  constructor(private readonly toBatch: (text: string) => B | undefined) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<B>> {
    if (this.ready.length === 0 && !this.failure && !this.ended) this.pull();
    const batch = this.ready.shift();
    if (batch) return Promise.resolve({ done: false, value: batch });
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => { this.waiting = { resolve, reject }; });
  }

  return(): Promise<IteratorResult<B>> {
    this.ended = true;
    this.ready.length = 0;
    this.stop();
    return Promise.resolve({ done: true, value: undefined });
  }

  /** Asks the body for more (a read that finds nothing ready). */
  protected abstract pull(): void;

  /** Stops reading and discards the body (the consumer stopped early). */
  protected abstract stop(): void;

  /** Hands the text of whole events to the waiting read, or queues it as a batch. */
  protected deliver(text: string): void {
    const batch = text === '' ? undefined : this.toBatch(text);
    if (batch === undefined) return;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting.resolve({ done: false, value: batch });
    } else {
      this.ready.push(batch);
    }
  }

  /** The body ended: the event it ended inside of (if any) is the last batch. */
  protected finish(): void {
    const text = this.buffer.end();
    const last = text === '' ? undefined : this.toBatch(text);
    if (last !== undefined) this.ready.push(last);
    this.ended = true;
    this.settleWaiting();
  }

  /** The body failed: reads fail once the batches before the failure are read. */
  protected failWith(error: unknown): void {
    this.failure ??= { error };
    this.settleWaiting();
  }

  /** Answers a waiting read once the body ended or failed. */
  private settleWaiting(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    const batch = this.ready.shift();
    if (!batch && !this.failure && !this.ended) return;
    this.waiting = undefined;
    if (batch) waiting.resolve({ done: false, value: batch });
    else if (this.failure) waiting.reject(this.failure.error);
    else waiting.resolve({ done: true, value: undefined });
  }
}

/**
 * Events of an upstream body (upstream-body.ts), which hands over each chunk as the HTTP
 * parser reads it. The chunks of one network read arrive in one synchronous run, so they are
 * gathered and decoded once, in a microtask after the run: one batch per read.
 */
class BodySseReader<B> extends SseReader<B> implements ChunkSink {
  private readonly chunks: Buffer[] = [];
  private flushQueued = false;

  constructor(private readonly body: UpstreamBody, toBatch: (text: string) => B | undefined) {
    super(toBatch);
    body.attach(this);
  }

  chunk(data: Buffer): void {
    this.chunks.push(data);
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(this.flush);
  }

  end(): void {
    this.flush();
    this.finish();
  }

  fail(error: unknown): void {
    this.flush();
    this.failWith(error);
  }

  protected pull(): void {
    this.body.resume();
  }

  protected stop(): void {
    this.chunks.length = 0;
    this.body.destroy();
  }

  private readonly flush = (): void => {
    this.flushQueued = false;
    const chunks = this.chunks;
    if (chunks.length === 0 || this.ended) return;
    const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    chunks.length = 0;
    this.deliver(this.buffer.push(data));
    // A batch nobody has asked for yet: the upstream waits until it is read.
    if (this.ready.length > 0) this.body.pause();
  };
}

/**
 * Events of a Node Readable (a test's iterable, read through Readable.from), read with
 * `read()` on its 'readable' events: `read()` hands over everything buffered at once.
 */
class ReadableSseReader<B> extends SseReader<B> {
  constructor(private readonly body: Readable, toBatch: (text: string) => B | undefined) {
    super(toBatch);
    body.on('readable', this.onReadable);
    body.on('end', this.onEnd);
    body.on('error', this.onError);
    // A body destroyed without an error (an abort) ends the reader instead of leaving it waiting.
    body.on('close', this.onClose);
  }

  /** Reads what the body holds into one batch (nothing when a batch still waits unread). */
  protected pull(): void {
    let text = '';
    for (let chunk = this.body.read() as Buffer | string | null; chunk !== null; chunk = this.body.read() as Buffer | string | null) {
      text += this.buffer.push(chunk);
    }
    this.deliver(text);
  }

  protected stop(): void {
    this.body.off('readable', this.onReadable);
    this.body.off('end', this.onEnd);
    this.body.off('close', this.onClose);
    // The 'error' listener stays: a body destroyed later must not throw an unhandled error.
    if (!this.body.destroyed) this.body.destroy();
  }

  private readonly onReadable = (): void => {
    if (this.ready.length === 0) this.pull();
  };

  private readonly onEnd = (): void => this.finish();

  private readonly onError = (error: unknown): void => this.failWith(error);

  private readonly onClose = (): void => {
    if (!this.ended && !this.failure) this.failWith(this.body.errored ?? new Error('aborted'));
  };
}
