import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** The options of V8's `gc()` extension. */
type GcFunction = (options?: { type?: 'minor' | 'major' }) => void;

/**
 * One young-generation collection (a scavenge), run by `gateway serve` once everything it
 * serves with is built and warmed (upstream/warm-up.ts), before it reports ready. Startup
 * leaves the young generation full of objects that live on (the compiled config, caches, code):
 * otherwise the first requests' first scavenge copied them (5–9 ms) inside the loop turns that
 * carry the first burst. Collected here, that cost is spent before the gateway takes traffic.
 *
 * A scavenge, not a full collection: a full one after the warm-up cost every request ~5% more
 * CPU from then on (both builds loaded at once, plain and streamed; a full one before the
 * warm-up did not), and took 16–24 ms of the start against ~3 ms (docs/performance.md).
 *
 * Node hides `gc()` unless started with --expose-gc: the flag is set only long enough to fetch
 * the function from a fresh context, then cleared (jest's leak detector does the same), so no
 * other code sees a `gc` global.
 */
export function collectStartupGarbage(): void {
  const exposed = (globalThis as { gc?: GcFunction }).gc;
  if (typeof exposed === 'function') return exposed({ type: 'minor' });
  setFlagsFromString('--expose-gc');
  try {
    (runInNewContext('gc') as GcFunction)({ type: 'minor' });
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
