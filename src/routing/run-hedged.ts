import { setTimeout as sleep } from 'node:timers/promises';
import { runRouted, type Routed, type RoutedCall } from './run-routed.js';
import { abortSignalOf } from '../upstream/request-abort.js';

/**
 * The routing loop with hedging (`hedge_after_ms`): when the first target has produced nothing
 * by then, the remaining targets start in parallel; the first answer wins and the other side
 * is aborted (its hold released, so only the winner is billed). When the first target fails
 * before the hedge fires, the others simply follow as fallbacks. Without `hedgeAfterMs` (or with
 * one target) this is runRouted itself, with no extra timer, signal or listener.
 */
export function runHedged<E, P, T>(call: RoutedCall<E, P, T>, hedgeAfterMs: number | undefined): Promise<Routed<E, P, T>> {
  // Not an async function itself: the common unhedged call costs no extra promise.
  if (!hedgeAfterMs || call.targets.length < 2) return runRouted(call);
  return raceHedged(call, hedgeAfterMs);
}

/** Two sides, the first target alone and the others once `hedgeAfterMs` passed; first answer wins. */
async function raceHedged<E, P, T>(call: RoutedCall<E, P, T>, hedgeAfterMs: number): Promise<Routed<E, P, T>> {
  const first = new AbortController();
  const second = new AbortController();
  const forward = () => { first.abort(call.signal.reason); second.abort(call.signal.reason); };
  // Not removed afterwards: the winner keeps streaming on its side's signal, which must still
  // follow the client (and the total deadline).
  abortSignalOf(call.signal).addEventListener('abort', forward, { once: true });
  const hedged = { ...call, stats: call.stats ?? { calls: 0 } };
  const settle = <R>(p: Promise<R>) => p.then((value) => ({ ok: true as const, value }), (error: unknown) => ({ ok: false as const, error }));
  // The others follow outside this side's loop: an all-open first target is skipped, not forced.
  const a = settle(runRouted({ ...hedged, targets: call.targets.slice(0, 1), signal: first.signal, alternativesFollow: true }));
  const wait = new AbortController();
  const early = await Promise.race([a, sleep(hedgeAfterMs, undefined, { signal: wait.signal }).then(() => undefined, () => undefined)]);
  wait.abort();
  if (early) {
    if (early.ok) return early.value;
    return runRouted({ ...hedged, targets: call.targets.slice(1) });
  }
  const b = settle(runRouted({ ...hedged, targets: call.targets.slice(1), signal: second.signal }));
  const winner = await Promise.race([a.then((r) => ({ side: 'a' as const, r })), b.then((r) => ({ side: 'b' as const, r }))]);
  const [mine, other, otherController] = winner.side === 'a' ? [winner.r, b, second] : [winner.r, a, first];
  if (mine.ok) {
    otherController.abort();
    void other.then(async (r) => { if (r.ok) await call.discard?.(r.value.value, r.value.prepared); });
    return { ...mine.value, calls: hedged.stats.calls, fallbackReason: mine.value.fallbackReason ?? (winner.side === 'b' ? 'hedge' : undefined) };
  }
  const last = await other;
  if (last.ok) return { ...last.value, calls: hedged.stats.calls };
  throw last.error;
}
