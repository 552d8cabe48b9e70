import type { BreakerVerdict } from './breaker.js';
import type { BreakerStore } from './breaker-store.js';

/** Breaker states as operators see them (the `gateway_breaker_state` gauge). */
export type ObservedBreakerState = 'closed' | 'half_open' | 'open';

/**
 * A breaker store that reports each upstream's state when it changes, as this instance sees
 * it: `open` when a check finds the breaker open, `half_open` when it lets the probe through,
 * `closed` when an attempt succeeds after that. Keys are `<provider>/<upstream>`. The happy path
 * (closed, then a success) reports nothing and allocates nothing.
 */
export function observeBreakerStore(store: BreakerStore, report: (provider: string, upstream: string, state: ObservedBreakerState) => void): BreakerStore {
  const states = new Map<string, ObservedBreakerState>();
  const set = (key: string, state: ObservedBreakerState) => {
    if ((states.get(key) ?? 'closed') === state) return;
    if (state === 'closed') states.delete(key);
    else states.set(key, state);
    const slash = key.indexOf('/');
    report(key.slice(0, slash), key.slice(slash + 1), state);
  };
  const seen = (key: string, verdict: BreakerVerdict): BreakerVerdict => {
    if (verdict !== 'closed') set(key, verdict === 'open' ? 'open' : 'half_open');
    return verdict;
  };
  return {
    check(key, policy) {
      const verdict = store.check(key, policy);
      return typeof verdict === 'string' ? seen(key, verdict) : verdict.then((v) => seen(key, v));
    },
    record(key, ok, policy) {
      if (ok && states.has(key)) set(key, 'closed');
      return store.record(key, ok, policy);
    },
    cooldownLeftMs: (key, policy) => store.cooldownLeftMs(key, policy),
  };
}
