/**
 * AWS event-stream messages as Bedrock sends them, encoded with @smithy/eventstream-codec (prelude
 * and message CRC32 included): events (`:message-type: event`), modeled exceptions
 * (`:message-type: exception`) and InvokeModelWithResponseStream `chunk` events whose payload
 * is `{"bytes": <base64 of one Anthropic event>}`.
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';

const codec = new EventStreamCodec((bytes) => Buffer.from(bytes).toString('utf8'), (text) => Buffer.from(text, 'utf8'));

const str = (value: string) => ({ type: 'string' as const, value });

/** One `:message-type: event` message with a JSON payload. */
export function eventMessage(eventType: string, payload: unknown): Buffer {
  return Buffer.from(codec.encode({
    headers: { ':message-type': str('event'), ':event-type': str(eventType), ':content-type': str('application/json') },
    body: Buffer.from(JSON.stringify(payload), 'utf8'),
  }));
}

/** One modeled exception (`throttlingException`, `modelStreamErrorException` ...). */
export function exceptionMessage(exceptionType: string, payload: unknown): Buffer {
  return Buffer.from(codec.encode({
    headers: { ':message-type': str('exception'), ':exception-type': str(exceptionType), ':content-type': str('application/json') },
    body: Buffer.from(JSON.stringify(payload), 'utf8'),
  }));
}

/** The messages of an event stream as received (each frame's length is its first four bytes). */
export function decodeEventStream(bytes: Buffer): Array<{ headers: Record<string, string>; body: string }> {
  const out: Array<{ headers: Record<string, string>; body: string }> = [];
  for (let at = 0; at < bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const message = codec.decode(bytes.subarray(at, at + length));
    const headers = Object.fromEntries(Object.entries(message.headers).map(([k, v]) => [k, String(v.value)]));
    out.push({ headers, body: Buffer.from(message.body).toString('utf8') });
    at += length;
  }
  return out;
}

/** An InvokeModelWithResponseStream `chunk`: one model event, base64 in `bytes`. */
export function chunkMessage(modelEvent: unknown): Buffer {
  return eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(modelEvent), 'utf8').toString('base64') });
}
