import { GatewayError, isGatewayError } from '../errors/gateway-error.js';

/** What the gateway does when the shared store (Redis) cannot be reached (gateway.yaml `store.on_error`). */
export type StoreErrorMode = 'open' | 'closed';

/** 503 `store_unavailable`: the shared store is down and `store.on_error` is `closed`. */
export function storeUnavailable(): GatewayError {
  return new GatewayError(
    503, 'api_error', 'store_unavailable',
    'The shared state store is unavailable; retry shortly.',
    undefined, { 'Retry-After': '1' },
  );
}

/**
 * Runs an operation on the shared store and decides what happens when it fails: `open` runs
 * the same operation on this instance's memory store instead (the gateway keeps serving, with
 * limits and budgets counted per instance until Redis is back); `closed` refuses with 503.
 */
export interface StoreGuard {
  readonly mode: StoreErrorMode;
  /** Reports a store failure handled elsewhere (starts the same short pause of remote calls); a `StoreSkipped` is no failure. */
  onFailure?(error: unknown): void;
  /**
   * True for SUSPECT_MS after a failure: calls skip the store and fall back at once instead of
   * each waiting out the command timeout against a stalled Redis. After that, the first caller
   * to ask gets false and is the probe (it must try Redis and report the outcome); the others
   * keep skipping until the probe succeeds or fails, or PROBE_MS passed.
   */
  suspect?(): boolean;
  /** True from a failure until the next success: the store is not known to answer (claims no probe). */
  failing?(): boolean;
  /** Reports a store success handled elsewhere (ends the pause). */
  onSuccess?(): void;
  run<T>(remote: () => Promise<T>, local: () => Promise<T>): Promise<T>;
}

/** How long remote calls are skipped after a store failure (then one probe at a time gets through). */
export const SUSPECT_MS = 500;
/** How long one probe may take before another caller probes (the command timeout, and a margin). */
const PROBE_MS = 1500;

/**
 * The error of a call that skipped the store because the guard is pausing it: not a store
 * failure of its own, so it neither extends the pause nor is logged.
 */
export class StoreSkipped extends Error {
  constructor() {
    super('store skipped after a recent failure');
    this.name = 'StoreSkipped';
  }
}

/** A guard for one store connection (`conn`: its reconnects end the pause); `onFallback` hears about each failure (for logs). */
export function createStoreGuard(mode: StoreErrorMode, onFallback?: (error: unknown) => void, conn?: { onReady(listener: () => void): void }): StoreGuard {
  let failedAt = 0;
  let probeUntil = 0;
  const succeed = () => {
    failedAt = 0;
    probeUntil = 0;
  };
  // A fresh connection is worth trying at once.
  conn?.onReady(succeed);
  const fail = (e: unknown) => {
    // A skipped call says nothing new about the store; counting it would extend the pause for
    // as long as traffic keeps coming (a stalled-then-resumed Redis would never be tried again).
    if (e instanceof StoreSkipped) return;
    failedAt = Date.now();
    probeUntil = 0;
    onFallback?.(e);
  };
  const suspect = () => {
    if (failedAt === 0) return false;
    const now = Date.now();
    if (now - failedAt < SUSPECT_MS || now < probeUntil) return true;
    probeUntil = now + PROBE_MS;
    return false;
  };
  return {
    mode,
    onFailure: fail,
    suspect,
    failing: () => failedAt !== 0,
    onSuccess: succeed,
    async run(remote, local) {
      try {
        if (suspect()) throw new StoreSkipped();
        const out = await remote();
        succeed();
        return out;
      } catch (e) {
        if (isGatewayError(e)) throw e;
        fail(e);
        if (mode === 'closed') throw storeUnavailable();
        return local();
      }
    },
  };
}
