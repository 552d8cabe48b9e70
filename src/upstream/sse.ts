import { createParser } from 'eventsource-parser';
import type { SseFrame } from '../codecs/codec.js';

/**
 * Reads server-sent events from a byte stream as they arrive. Handles any line ending and
 * multibyte characters split across chunks (eventsource-parser + a streaming TextDecoder).
 */
export async function* readSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseFrame> {
  const pending: SseFrame[] = [];
  const parser = createParser({
    onEvent: (e) => pending.push(e.event ? { event: e.event, data: e.data } : { data: e.data }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) yield pending.shift()!;
  }
  parser.feed(decoder.decode() + '\n\n');
  while (pending.length > 0) yield pending.shift()!;
}

/** Serializes one frame in SSE syntax (multi-line data split into several data: lines). */
export function writeSseFrame(frame: SseFrame): string {
  const data = frame.data.includes('\n') ? frame.data.split('\n').map((l) => `data: ${l}`).join('\n') : `data: ${frame.data}`;
  return frame.event ? `event: ${frame.event}\n${data}\n\n` : `${data}\n\n`;
}
