import { StringDecoder } from 'node:string_decoder';
import type { SseFrame } from '../sse-frame.js';
import { splitSseBlocks } from './sse-blocks.js';
import type { ChunkSink, ChunkSource } from './upstream-body.js';

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
export function readSseBlocks(body: ChunkSource): AsyncIterableIterator<SseFrame[]> {
  return new SseReader(body, (text) => {
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
export function readSseText(body: ChunkSource): AsyncIterableIterator<readonly [string]> {
  return new SseReader(body, (text) => [text] as const);
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
  push(chunk: Buffer): string {
    let text = this.buffered + this.decoder.write(chunk);
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
 * An iterator of batches of whole events, fed by a chunk source (an upstream body). The chunks that arrive in one synchronous run (one network
 * read: undici hands over each HTTP chunk of it in turn) are gathered and decoded once, in a
 * microtask after the run: one batch per read, so a proxy writes what one read brought in one
 * write. Nothing more is read while a batch waits unread (backpressure reaches the upstream); a
 * failure of the body fails the next read, after the batches before it; `return()` (a consumer
 * that stops early) discards the body.
 */
class SseReader<B> implements AsyncIterableIterator<B>, ChunkSink {
  private readonly buffer = new SseBlockBuffer();
  private readonly ready: B[] = [];
  private readonly chunks: Buffer[] = [];
  private flushQueued = false;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private waiting: { resolve: (r: IteratorResult<B>) => void; reject: (e: unknown) => void } | undefined;

  /** `toBatch` makes a batch of the text of whole events (undefined: nothing to hand over). */
  constructor(private readonly source: ChunkSource, private readonly toBatch: (text: string) => B | undefined) {
    source.attach(this);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<B>> {
    if (this.ready.length === 0 && !this.failure && !this.ended) this.source.resume();
    const batch = this.ready.shift();
    if (batch) return Promise.resolve({ done: false, value: batch });
    if (this.failure) return Promise.reject(this.failure.error);
    if (this.ended) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve, reject) => { this.waiting = { resolve, reject }; });
  }

  return(): Promise<IteratorResult<B>> {
    this.ended = true;
    this.ready.length = 0;
    this.chunks.length = 0;
    this.source.destroy();
    return Promise.resolve({ done: true, value: undefined });
  }

  chunk(data: Buffer): void {
    this.chunks.push(data);
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(this.flush);
  }

  /** The body ended: the event it ended inside of (if any) is the last batch. */
  end(): void {
    this.flush();
    const text = this.buffer.end();
    const last = text === '' ? undefined : this.toBatch(text);
    if (last !== undefined) this.ready.push(last);
    this.ended = true;
    this.settleWaiting();
  }

  /** The body failed: reads fail once the batches before the failure are read. */
  fail(error: unknown): void {
    this.flush();
    this.failure ??= { error };
    this.settleWaiting();
  }

  private readonly flush = (): void => {
    this.flushQueued = false;
    const chunks = this.chunks;
    if (chunks.length === 0 || this.ended) return;
    const data = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    chunks.length = 0;
    const text = this.buffer.push(data);
    const batch = text === '' ? undefined : this.toBatch(text);
    if (batch === undefined) return;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting.resolve({ done: false, value: batch });
      return;
    }
    // A batch nobody has asked for yet: the upstream waits until it is read.
    this.ready.push(batch);
    this.source.pause();
  };

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
