import type { ServerResponse } from 'node:http';
import type { SseFrame } from '../codecs/codec.js';
import { writeSseFrame } from '../codecs/shared/sse-frame.js';

/** Opens a server-sent event response: no buffering anywhere between us and the client. */
export function openSse(res: ServerResponse, extraHeaders: Record<string, string>): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
    ...extraHeaders,
  });
  // No flushHeaders(): the headers leave with the first frame, in one write (callers open the
  // stream only once they have that frame).
}

/** Writes frames as one chunk; resolves once the socket drains when it is backed up. */
export async function writeFrames(res: ServerResponse, frames: readonly SseFrame[]): Promise<void> {
  if (frames.length === 0 || res.writableEnded || res.destroyed) return;
  const text = frames.length === 1 ? writeSseFrame(frames[0]!) : frames.map(writeSseFrame).join('');
  if (!res.write(text)) await new Promise<void>((resolve) => {
    const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
    res.once('drain', done);
    res.once('close', done);
  });
}
