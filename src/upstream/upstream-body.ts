import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { errors as undiciErrors, parseHeaders } from './undici-core.js';
import type { CallSignal } from './request-abort.js';
import { firstHeader } from '../errors/upstream-failure.js';

/** Response headers as undici parses them: lower-cased names, repeated ones as arrays. */
export type UpstreamHeaders = Record<string, string | string[] | undefined>;

/** Receives a body's bytes as they arrive: one `chunk` per piece the HTTP parser hands over. */
export interface ChunkSink {
  chunk(data: Buffer): void;
  end(): void;
  fail(error: unknown): void;
}

/**
 * Rewrites a body's bytes as they arrive (an AWS event stream read as text events). `push`
 * returns what a chunk becomes (undefined: nothing yet), `end` what is left once the body is
 * complete; a throw fails the body with that error and aborts its request.
 */
export interface ChunkTransform {
  push(chunk: Buffer): Buffer | undefined;
  end(): Buffer | undefined;
  /** A failure found inside the last chunk: the body fails with it once that chunk's output is delivered. */
  readonly error?: unknown;
}

/** What hands a body's chunks to one sink, and can hold them back or discard the body. */
export interface ChunkSource {
  /** Hands held and future chunks to `sink`, then its end or failure. Once per body. */
  attach(sink: ChunkSink): void;
  pause(): void;
  resume(): void;
  destroy(): void;
}

/** The head of an upstream answer, its body still arriving. */
export interface UpstreamHead {
  readonly ok: true;
  readonly status: number;
  /** Parsed on first read: a JSON answer passed through never reads them. */
  readonly headers: UpstreamHeaders;
  readonly body: UpstreamBody;
  /** The first value of one header (`name` in lower case), found without parsing the rest. */
  header(name: string): string | undefined;
}

/** An UpstreamHead whose headers stay raw until read (undici's parse is ~2-5 µs profiled a response). */
class LazyHead implements UpstreamHead {
  readonly ok = true;
  private parsed: UpstreamHeaders | undefined;

  constructor(readonly status: number, private readonly raw: Buffer[], readonly body: UpstreamBody) {}

  get headers(): UpstreamHeaders {
    return (this.parsed ??= parseHeaders(this.raw));
  }

  header(name: string): string | undefined {
    if (this.parsed) return firstHeader(this.parsed[name]);
    const raw = this.raw;
    for (let i = 0; i < raw.length; i += 2) {
      const field = raw[i]!;
      // As undici's parser reads them: names case-insensitive, values as latin1.
      if (field.length === name.length && field.toString('latin1').toLowerCase() === name) return raw[i + 1]!.toString('latin1');
    }
    return undefined;
  }
}

/** Bytes held for a body nobody reads yet before the upstream connection is paused (undici's default for its bodies). */
const HIGH_WATER_BYTES = 64 * 1024;

/**
 * Sends one request through `dispatcher` and resolves with the answer's head once its headers
 * are in; the body is read from the returned UpstreamBody. Rejects with undici's error when
 * the request fails before that (or with the signal's reason when it is aborted).
 *
 * Why not undici's `request()`: per call it makes an AsyncResource (an async_hooks scope for
 * its callback), a Node Readable for the body with its event listeners and stream state, and
 * a promise around a callback; a proxy reads each body once, whole or event by event. This
 * dispatch handler keeps the body's chunks itself, and the gateway's two readers (whole body,
 * SSE events) take them straight from it: plain calls 154 -> 147 µs of gateway CPU, streams
 * 207 -> 203 µs, both builds loaded at once (docs/performance.md).
 */
export function dispatchUpstream(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal?: CallSignal): Promise<UpstreamHead> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason ?? new undiciErrors.RequestAbortedError());
      return;
    }
    const body = new UpstreamBody(resolve, reject, signal);
    // dispatch() reports its own failures through the handler's onError.
    dispatcher.dispatch(options, body);
  });
}

/**
 * An upstream answer's body, as it arrives: read whole (`text`, `json`, `arrayBuffer`),
 * handed chunk by chunk to one sink (`attach`, which the SSE reader uses), streamed
 * (`toReadable`), or discarded (`destroy`, which aborts the request if the body is not complete). One reader per
 * body, as with any HTTP body. Until a reader comes, chunks are held, and past 64 KiB the
 * connection is paused so an unread body does not fill memory.
 *
 * The object is also undici's dispatch handler for its request (the `on*` methods, called by
 * undici only): one object per call instead of a handler, a stream and their listeners.
 */
export class UpstreamBody implements ChunkSource {
  /** True once the body was discarded with `destroy()`. */
  destroyed = false;
  private readonly held: Buffer[] = [];
  private heldBytes = 0;
  private sink: ChunkSink | undefined;
  private paused = false;
  private ended = false;
  private failure: { error: unknown } | undefined;
  private used = false;
  private headSettled = false;
  private abortCall: ((reason?: Error) => void) | undefined;
  private transform: ChunkTransform | undefined;
  private resumeCall: (() => void) | undefined;
  /** The signal's reason when it fired before undici connected (onConnect aborts then). */
  private abortReason: unknown = undefined;

  constructor(
    private readonly resolveHead: (head: UpstreamHead) => void,
    private readonly rejectHead: (error: unknown) => void,
    private readonly signal: CallSignal | undefined,
  ) {
    if (signal) listen(signal, this.onAbort);
  }

  /** Hands held and future chunks to `sink`, then its end or failure. Once per body. */
  attach(sink: ChunkSink): void {
    this.claim();
    this.sink = sink;
    const held = this.held;
    for (let i = 0; i < held.length; i++) sink.chunk(held[i]!);
    held.length = 0;
    this.heldBytes = 0;
    if (this.failure) sink.fail(this.failure.error);
    else if (this.ended) sink.end();
    else this.resume();
  }

  /**
   * Reads the body through `transform` from here on (chunks already held included). Before any
   * reader: every reader then sees the transformed bytes.
   */
  transformChunks(transform: ChunkTransform): void {
    if (this.used || this.destroyed) throw new TypeError('Body is unusable: Body has already been read');
    this.transform = transform;
    const held = this.held.splice(0);
    this.heldBytes = 0;
    for (const chunk of held) {
      const out = this.transformed(chunk);
      if (out === null) return;
      if (out !== undefined) {
        this.held.push(out);
        this.heldBytes += out.length;
      }
      if (this.transform.error !== undefined) {
        this.failWith(this.transform.error);
        return;
      }
    }
    if (this.ended) this.finishTransform();
  }

  /** Asks the upstream to stop sending (the connection is paused at the next chunk). */
  pause(): void {
    this.paused = true;
  }

  /** Lets a paused upstream send again (chunks may arrive within this call). */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.resumeCall?.();
  }

  /** The whole body as UTF-8 text (a leading byte order mark dropped, as undici's `text()` does). */
  text(): Promise<string> {
    return this.collect(decodeUtf8);
  }

  /** The whole body parsed as JSON (a SyntaxError when it is not). */
  json(): Promise<unknown> {
    return this.collect((bytes) => JSON.parse(decodeUtf8(bytes)) as unknown);
  }

  /** The whole body's bytes. */
  arrayBuffer(): Promise<ArrayBuffer> {
    return this.collect((bytes) => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  }

  /**
   * The body as a Node Readable, for APIs that take a stream (a media answer piped to the
   * client) and for reading it chunk by chunk (`for await`). The Readable's backpressure
   * pauses the upstream; destroying it (or leaving the loop early) discards the body.
   */
  toReadable(): Readable {
    const readable = new Readable({
      read: () => this.resume(),
      destroy: (error, callback) => {
        this.destroy();
        callback(error);
      },
    });
    this.attach({
      chunk: (data) => { if (!readable.push(data)) this.pause(); },
      end: () => { readable.push(null); },
      fail: (error) => { readable.destroy(error as Error); },
    });
    return readable;
  }

  /**
   * Discards the body: what is held is dropped and, unless the body is complete, the request
   * is aborted (its connection is not reused). A sink still attached fails with the abort.
   */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.held.length = 0;
    this.heldBytes = 0;
    if (this.ended || this.failure) return;
    const reason = new undiciErrors.RequestAbortedError();
    this.failure = { error: reason };
    this.unlisten();
    this.abortCall?.(reason);
    this.sink?.fail(reason);
  }

  // undici's dispatch handler (legacy callbacks: undici 7 calls them without a wrapper).

  onConnect(abort: (reason?: Error) => void): void {
    // undici passes any reason through to onError; its type only names Error.
    if (this.abortReason !== undefined) abort(this.abortReason as Error);
    else this.abortCall = abort;
  }

  onHeaders(status: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // 1xx answers (100 Continue, 103 Early Hints) are not the answer.
    if (status < 200) return true;
    this.resumeCall = resume;
    this.headSettled = true;
    this.resolveHead(new LazyHead(status, rawHeaders, this));
    return true;
  }

  onData(raw: Buffer): boolean {
    if (this.destroyed || this.failure) return false;
    const chunk = this.transform ? this.transformed(raw) : raw;
    if (chunk === null) return false;
    if (chunk === undefined) return !this.paused;
    if (this.sink) {
      this.sink.chunk(chunk);
    } else {
      this.held.push(chunk);
      this.heldBytes += chunk.length;
      if (this.heldBytes >= HIGH_WATER_BYTES) this.paused = true;
    }
    if (this.transform?.error !== undefined) {
      this.failWith(this.transform.error);
      return false;
    }
    return !this.paused;
  }

  onComplete(): void {
    if (this.failure) return;
    this.ended = true;
    this.unlisten();
    if (this.transform && !this.finishTransform()) return;
    this.sink?.end();
  }

  onError(error: unknown): void {
    this.unlisten();
    if (!this.headSettled) {
      this.headSettled = true;
      this.rejectHead(error);
      return;
    }
    if (this.failure || this.ended) return;
    this.failure = { error };
    this.held.length = 0;
    this.sink?.fail(error);
  }

  /** The signal fired: before the answer the request is aborted, after it the body fails (as undici's request() does). */
  private readonly onAbort = (): void => {
    const reason = this.signal?.reason ?? new undiciErrors.RequestAbortedError();
    this.unlisten();
    if (!this.abortCall) {
      this.abortReason = reason;
      return;
    }
    if (this.ended || this.failure) return;
    // onError follows: it rejects the head, or fails the body's reader.
    this.abortCall(reason as Error);
  };

  /** A chunk through the transform: its output, or null when the transform failed the body. */
  private transformed(chunk: Buffer): Buffer | undefined | null {
    let out: Buffer | undefined;
    try {
      out = this.transform!.push(chunk);
    } catch (e) {
      this.failWith(e);
      return null;
    }
    if (out === undefined && this.transform!.error !== undefined) {
      this.failWith(this.transform!.error);
      return null;
    }
    return out;
  }

  /** The transform's last bytes once the body is complete; false when it failed the body. */
  private finishTransform(): boolean {
    let last: Buffer | undefined;
    try {
      last = this.transform!.end();
    } catch (e) {
      this.failWith(e);
      return false;
    }
    if (last === undefined) return true;
    if (this.sink) this.sink.chunk(last);
    else this.held.push(last);
    return true;
  }

  /** Fails the body with `error` (a transform's): the request is aborted, a reader sees the error. */
  private failWith(error: unknown): void {
    if (this.failure) return;
    // Held chunks stay: a reader still gets what arrived before the failure, then the failure.
    this.failure = { error };
    this.unlisten();
    if (!this.ended) this.abortCall?.(error as Error);
    this.sink?.fail(error);
  }

  private unlisten(): void {
    if (this.signal) unlisten(this.signal, this.onAbort);
  }

  private claim(): void {
    if (this.used || this.destroyed) throw new TypeError('Body is unusable: Body has already been read');
    this.used = true;
  }

  /** Every chunk joined once the body is complete, made into what `finish` returns (a throw rejects). */
  private collect<T>(finish: (bytes: Buffer) => T): Promise<T> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let length = 0;
      this.attach({
        chunk: (data) => { chunks.push(data); length += data.length; },
        end: () => {
          try {
            resolve(finish(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length)));
          } catch (e) {
            reject(e);
          }
        },
        fail: reject,
      });
    });
  }
}

/** UTF-8 text of a body, without the byte order mark a body may start with. */
function decodeUtf8(bytes: Buffer): string {
  const start = bytes.length > 2 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString('utf8', start);
}

function listen(signal: CallSignal, listener: () => void): void {
  if ('addEventListener' in signal) signal.addEventListener('abort', listener);
  else signal.on('abort', listener);
}

function unlisten(signal: CallSignal, listener: () => void): void {
  if ('removeEventListener' in signal) signal.removeEventListener('abort', listener);
  else signal.removeListener('abort', listener);
}
