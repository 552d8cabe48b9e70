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
  run<T>(remote: () => Promise<T>, local: () => Promise<T>): Promise<T>;
}

/** A guard for one store connection; `onFallback` hears about each failure (for logs). */
export function createStoreGuard(mode: StoreErrorMode, onFallback?: (error: unknown) => void): StoreGuard {
  return {
    mode,
    async run(remote, local) {
      try {
        return await remote();
      } catch (e) {
        if (isGatewayError(e)) throw e;
        onFallback?.(e);
        if (mode === 'closed') throw storeUnavailable();
        return local();
      }
    },
  };
}
