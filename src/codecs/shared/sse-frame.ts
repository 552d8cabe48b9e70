/** SseFrame helpers: its wire form, and a copy with other data. Pure (codecs, billing and the stream writer share them). */
import type { SseFrame } from '../codec.js';

/** Serializes one frame in SSE syntax (multi-line data split into several data: lines). */
export function writeSseFrame(frame: SseFrame): string {
  if (frame.raw !== undefined) return frame.raw;
  const data = frame.data.includes('\n') ? frame.data.split('\n').map((l) => `data: ${l}`).join('\n') : `data: ${frame.data}`;
  return frame.event ? `event: ${frame.event}\n${data}\n\n` : `${data}\n\n`;
}

/** The frame with other data (its wire text, if it had one, no longer applies). */
export function withData(frame: SseFrame, data: string): SseFrame {
  return frame.event !== undefined ? { event: frame.event, data } : { data };
}
