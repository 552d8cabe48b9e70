/**
 * A kit upstream that serves one provider's API by code: the kit's server (faults, recording,
 * violations) hosting that provider's handler dialects, with the provider's state (stored files,
 * video jobs, knobs like polls-until-done) reachable as properties of the same handle.
 */
import { startKitUpstream, type KitUpstream } from '../fake-upstream.js';
import type { HandlerDialect } from '../handler.js';

/** A running provider fake: the kit upstream plus the provider's live state `S`. */
export type ProviderUpstream<S extends object> = KitUpstream & S;

/** How a provider fake is started beyond its handlers and state. */
export interface ProviderOptions {
  /** The kit's built-in text dialects this provider also serves (default none: those paths are unrouted). */
  builtIns?: readonly string[];
  /** Runs before the server closes (e.g. to end WebSockets the fake accepted). */
  onClose?: () => void | Promise<void>;
}

/**
 * Starts a kit upstream named `name` that accepts `apiKey` and serves `handlers` (and only the
 * built-in dialects `options.builtIns` names, so a call the provider has no route for is an
 * unrouted violation). Every own key of `state` becomes a property of the handle that reads and
 * writes `state` itself (accessors, not copies), so a test can change a knob while the fake runs.
 */
export async function startProviderUpstream<S extends object>(name: string, apiKey: string, handlers: HandlerDialect[], state: S, options: ProviderOptions = {}): Promise<ProviderUpstream<S>> {
  const upstream = await startKitUpstream(name, apiKey, { handlers, dialects: options.builtIns ?? [] });
  const close = upstream.close.bind(upstream);
  for (const key of Object.keys(state) as Array<keyof S & string>) {
    Object.defineProperty(upstream, key, { get: () => state[key], set: (value: S[typeof key]) => { state[key] = value; }, enumerable: true, configurable: true });
  }
  Object.defineProperty(upstream, 'close', {
    value: async () => {
      await options.onClose?.();
      await close();
    },
    enumerable: true,
    configurable: true,
  });
  return upstream as ProviderUpstream<S>;
}
