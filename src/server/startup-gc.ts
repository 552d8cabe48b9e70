import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One full garbage collection, run by `gateway serve` once everything it serves with is built
 * and before it reports ready. Startup leaves the young generation full of objects that live on
 * (the compiled config, caches, code) and the old generation just under the limit it started
 * with, so otherwise the first requests pay for both: the first scavenge copied megabytes
 * (5–8 ms) and a mark-compact followed, inside the loop turns of the first burst (the worst
 * event-loop delay of a start, see docs/performance.md). Collected here, that cost is spent
 * before the gateway takes traffic, and V8 sizes the next old-generation limit from what
 * actually survived.
 *
 * Node hides `gc()` unless started with --expose-gc: the flag is set only long enough to fetch
 * the function from a fresh context, then cleared (jest's leak detector does the same), so no
 * other code sees a `gc` global.
 */
export function collectStartupGarbage(): void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed();
  setFlagsFromString('--expose-gc');
  try {
    (runInNewContext('gc') as () => void)();
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}
