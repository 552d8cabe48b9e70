import { UpstreamBody } from '../../src/upstream/upstream-body.js';

/**
 * An UpstreamBody fed as undici feeds its dispatch handler: connected, a 200 head, then each
 * piece of `pieces` as one network read (each in its own turn, waiting while the body is
 * paused), then the end, or the iterable's failure as the body's error.
 */
export function upstreamBodyOf(pieces: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): UpstreamBody {
  let wake: (() => void) | undefined;
  const body = new UpstreamBody(() => undefined, () => undefined, undefined);
  body.onConnect(() => undefined);
  body.onHeaders(200, [], () => { const w = wake; wake = undefined; w?.(); });
  void (async () => {
    try {
      for await (const piece of pieces) {
        await new Promise((r) => setImmediate(r));
        if (body.destroyed) return;
        const flowing = body.onData(typeof piece === 'string' ? Buffer.from(piece) : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
        if (!flowing) await new Promise<void>((r) => { wake = r; });
      }
      await new Promise((r) => setImmediate(r));
      body.onComplete();
    } catch (e) {
      body.onError(e);
    }
  })();
  return body;
}
