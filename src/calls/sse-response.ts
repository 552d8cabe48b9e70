import type { ServerResponse } from 'node:http';
import type { SseFrame } from '../codecs/codec.js';
import { writeSseFrame } from '../sse-frame.js';

/** The headers of every event stream: no buffering anywhere between us and the client. */
const SSE_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['content-type', 'text/event-stream; charset=utf-8'],
  ['cache-control', 'no-cache'],
  ['x-accel-buffering', 'no'],
  ['connection', 'keep-alive'],
];

/**
 * Opens a server-sent event response: status and headers are set on the response, and leave
 * with the first frame in one write (callers open the stream only once they have that frame).
 * Set one by one rather than by writeHead(obj): the response already holds headers (the request
 * id), so Node would set each anyway, after two copies of the object.
 */
export function openSse(res: ServerResponse, extraHeaders: Record<string, string>): void {
  res.statusCode = 200;
  for (const [name, value] of SSE_HEADERS) res.setHeader(name, value);
  for (const name in extraHeaders) res.setHeader(name, extraHeaders[name]!);
}

/**
 * Writes frames as one chunk. Returns a promise only when the socket is backed up (it resolves
 * once drained), so a caller awaits only then: most writes cost no microtask turn.
 */
export function writeFrames(res: ServerResponse, frames: readonly SseFrame[]): Promise<void> | undefined {
  if (frames.length === 0 || res.writableEnded || res.destroyed) return undefined;
  // Concatenated, not mapped and joined: no array, and the one flattening happens in the write.
  let text = writeSseFrame(frames[0]!);
  for (let i = 1; i < frames.length; i++) text += writeSseFrame(frames[i]!);
  if (res.write(text)) return undefined;
  return new Promise<void>((resolve) => {
    const done = () => { res.off('drain', done); res.off('close', done); resolve(); };
    res.once('drain', done);
    res.once('close', done);
  });
}
