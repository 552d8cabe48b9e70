/**
 * The reader of AWS event streams (`application/vnd.amazon.eventstream`: Bedrock's
 * ConverseStream and InvokeModelWithResponseStream). A stream is a run of binary messages, each
 * `u32 total length, u32 headers length, u32 prelude CRC32, headers, payload, u32 message CRC32`
 * (big-endian); @smithy/eventstream-codec decodes one whole message and checks both CRCs. This
 * module cuts the byte stream into whole messages as chunks arrive and hands them on decoded.
 * It knows no payload format: the provider says what a message means.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html (the framing)
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { GatewayError } from '../errors/gateway-error.js';
import type { ChunkTransform } from './upstream-body.js';

/** One decoded message: header values as the codec read them (strings for the `:`-headers AWS sends), payload bytes. */
export interface EventStreamMessage {
  readonly headers: Readonly<Record<string, string | number | boolean>>;
  readonly payload: Uint8Array;
}

/** Prelude (12 bytes) + message CRC (4 bytes): the smallest message. */
const MIN_MESSAGE_BYTES = 16;
/** A message over this is a corrupt length, not a message (AWS caps event payloads well below). */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

const codec = new EventStreamCodec((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'), (text) => Buffer.from(text, 'utf8'));

/** The error of a stream whose framing is broken (a CRC mismatch, an impossible length, a cut message). */
function framingError(provider: string, what: string): GatewayError {
  return new GatewayError(502, 'upstream_error', 'invalid_upstream_response', `Provider '${provider}' sent an event stream that cannot be read: ${what}.`, { provider });
}

/**
 * Cuts an event stream into whole messages as its bytes arrive. `push` returns the messages a
 * chunk completes; `end` checks that nothing is left half-read. Both throw a 502
 * `invalid_upstream_response` GatewayError on broken framing.
 */
export class EventStreamSplitter {
  private pending: Buffer = Buffer.alloc(0);
  /** Broken framing found after some good messages of a chunk: thrown by the next call. */
  private broken: GatewayError | undefined;

  constructor(private readonly provider: string) {}

  /** The framing error found in the last chunk, after the messages it returned. */
  get error(): GatewayError | undefined {
    return this.broken;
  }

  push(chunk: Buffer): EventStreamMessage[] {
    if (this.broken) throw this.broken;
    let buffer = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: EventStreamMessage[] = [];
    try {
      while (buffer.length >= 4) {
        const total = buffer.readUInt32BE(0);
        if (total < MIN_MESSAGE_BYTES || total > MAX_MESSAGE_BYTES) throw framingError(this.provider, `a message length of ${total} bytes`);
        if (buffer.length < total) break;
        out.push(this.decode(buffer.subarray(0, total)));
        buffer = buffer.subarray(total);
      }
    } catch (e) {
      if (out.length === 0) throw e;
      // The good messages before the break are handed over; the break is thrown next.
      this.broken = e as GatewayError;
    }
    this.pending = buffer;
    return out;
  }

  end(): void {
    if (this.broken) throw this.broken;
    if (this.pending.length > 0) throw framingError(this.provider, `the stream ended inside a message (${this.pending.length} bytes left)`);
  }

  private decode(bytes: Buffer): EventStreamMessage {
    let message;
    try {
      message = codec.decode(bytes);
    } catch (e) {
      // The codec's words ("The prelude checksum specified in the message (x) does not match the calculated CRC32 checksum (y)").
      throw framingError(this.provider, e instanceof Error ? e.message : 'a malformed message');
    }
    const headers: Record<string, string | number | boolean> = {};
    for (const [name, header] of Object.entries(message.headers)) {
      const value = header.value;
      headers[name] = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : String(value);
    }
    return { headers, payload: message.body };
  }
}

/**
 * A chunk transform (UpstreamBody.transformChunks) that reads an event stream and writes what
 * `toText` makes of each message (undefined: nothing), so an event stream can be read by the
 * readers of text streams (the SSE readers).
 */
export function eventStreamTransform(provider: string, toText: (message: EventStreamMessage) => string | undefined): ChunkTransform {
  const splitter = new EventStreamSplitter(provider);
  return {
    get error() {
      return splitter.error;
    },
    push(chunk) {
      let text = '';
      for (const message of splitter.push(chunk)) text += toText(message) ?? '';
      return text === '' ? undefined : Buffer.from(text, 'utf8');
    },
    end() {
      splitter.end();
      return undefined;
    },
  };
}
