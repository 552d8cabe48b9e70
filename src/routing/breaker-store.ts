import { CLOSED, checkBreaker, cooldownLeftMs, recordBreaker, type BreakerState, type BreakerVerdict } from './breaker.js';
import type { RoutingPolicy } from './policy.js';

/**
 * Where breaker state lives: this process (memory) or Redis (shared by every instance, so one
 * instance learning an upstream is down spares the others). Keys are `<provider>/<upstream>`.
 */
export interface BreakerStore {
  /** Whether a call may go to the upstream now (a `probe` verdict claims the one probe). Synchronous in memory. */
  check(key: string, policy: RoutingPolicy['breaker']): BreakerVerdict | Promise<BreakerVerdict>;
  /** Records an attempt's outcome (success closes; failures count and open). */
  record(key: string, ok: boolean, policy: RoutingPolicy['breaker']): void | Promise<void>;
  /**
   * Milliseconds until the upstream's cooldown ends (0 when closed). Asked only when every
   * remaining target of a request is open, to send it to the one that reopens first.
   */
  cooldownLeftMs(key: string, policy: RoutingPolicy['breaker']): number | Promise<number>;
}

/** A breaker store in this process's memory. */
export function createMemoryBreakerStore(now: () => number = Date.now): BreakerStore & { state(key: string): BreakerState } {
  const states = new Map<string, BreakerState>();
  return {
    check(key, policy) {
      const state = states.get(key);
      if (!state) return 'closed';
      const { verdict, next } = checkBreaker(state, now(), policy);
      if (next !== state) states.set(key, next);
      return verdict;
    },
    record(key, ok, policy) {
      const state = states.get(key);
      // The happy path writes nothing: a success on a clean upstream changes no state.
      if (ok && !state) return;
      const next = recordBreaker(state ?? CLOSED, ok, now(), policy);
      if (next === CLOSED) states.delete(key);
      else states.set(key, next);
    },
    cooldownLeftMs(key, policy) {
      const state = states.get(key);
      return state ? cooldownLeftMs(state, now(), policy) : 0;
    },
    state: (key) => states.get(key) ?? CLOSED,
  };
}
