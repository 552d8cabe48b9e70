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
  /** Reports a store failure handled elsewhere (starts the same short pause of remote calls). */
  onFailure?(error: unknown): void;
  /**
   * True for SUSPECT_MS after a failure: calls skip the store and fall back at once instead of
   * each waiting out the command timeout against a stalled Redis.
   */
  suspect?(): boolean;
  /** Reports a store success handled elsewhere (ends the pause). */
  onSuccess?(): void;
  run<T>(remote: () => Promise<T>, local: () => Promise<T>): Promise<T>;
}

/** How long remote calls are skipped after a store failure (one probe per period gets through). */
export const SUSPECT_MS = 500;

/** A guard for one store connection (`conn`: its reconnects end the pause); `onFallback` hears about each failure (for logs). */
export function createStoreGuard(mode: StoreErrorMode, onFallback?: (error: unknown) => void, conn?: { onReady(listener: () => void): void }): StoreGuard {
  let failedAt = 0;
  // A fresh connection is worth trying at once.
  conn?.onReady(() => { failedAt = 0; });
  const fail = (e: unknown) => {
    failedAt = Date.now();
    onFallback?.(e);
  };
  const suspect = () => Date.now() - failedAt < SUSPECT_MS;
  return {
    mode,
    onFailure: fail,
    suspect,
    onSuccess: () => { failedAt = 0; },
    async run(remote, local) {
      try {
        if (suspect()) throw new Error('store suspended after a recent failure');
        const out = await remote();
        failedAt = 0;
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
