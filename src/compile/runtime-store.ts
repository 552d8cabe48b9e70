import type { Runtime } from './runtime.js';

/**
 * Holds the runtime in force. A request captures it once; `swap` replaces it only with a
 * runtime that compiled with zero errors, so a bad reload leaves the old one serving.
 */
export interface RuntimeStore {
  current(): Runtime;
  swap(next: Runtime): void;
}

export function createRuntimeStore(initial: Runtime): RuntimeStore {
  let runtime = initial;
  return { current: () => runtime, swap: (next) => { runtime = next; } };
}
