import { createParser } from 'eventsource-parser';
import type { SseFrame } from '../codecs/codec.js';

/**
 * Reads server-sent events from a byte stream as they arrive, one batch per network read (so
 * a proxy can write what one read brought in one write). Handles any line ending and multibyte
 * characters split across chunks (eventsource-parser + a streaming TextDecoder).
 */
export async function* readSseBatches(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseFrame[]> {
  let pending: SseFrame[] = [];
  const parser = createParser({
    onEvent: (e) => pending.push(e.event ? { event: e.event, data: e.data } : { data: e.data }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (pending.length > 0) {
      yield pending;
      pending = [];
    }
  }
  parser.feed(decoder.decode() + '\n\n');
  if (pending.length > 0) yield pending;
}

/** Reads server-sent events one frame at a time (see readSseBatches). */
export async function* readSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseFrame> {
  for await (const batch of readSseBatches(body)) yield* batch;
}

/** Serializes one frame in SSE syntax (multi-line data split into several data: lines). */
export function writeSseFrame(frame: SseFrame): string {
  const data = frame.data.includes('\n') ? frame.data.split('\n').map((l) => `data: ${l}`).join('\n') : `data: ${frame.data}`;
  return frame.event ? `event: ${frame.event}\n${data}\n\n` : `${data}\n\n`;
}
