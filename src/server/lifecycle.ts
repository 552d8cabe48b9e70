import type { ParameterizedContext } from 'koa';
import { LiveList, type LiveEntry } from './live-list.js';
import type { AppState } from '../calls/state.js';

/** Where the process is in its life: probes and the drain gate read it. */
export type LifecycleState = 'starting' | 'ready' | 'draining';

/**
 * The server's life as one small object: its state, the requests in flight, and a `shutdown`
 * signal that fires when the drain's grace period is over. A stream writer that wants to end
 * its stream itself (with its own error event) can observe `shutdown`; streams that do not are
 * ended by the drain with the route's error event (src/server/drain.ts).
 */
export interface Lifecycle {
  readonly state: LifecycleState;
  /** Aborted (reason: a `shutting_down` GatewayError) when the grace period ends. */
  readonly shutdown: AbortSignal;
  /** Requests whose response has not closed yet (probes included). */
  readonly inFlight: Iterable<ParameterizedContext<AppState>> & { readonly size: number };
  /** Config, store and providers are ready: /readyz answers 200 from now on. */
  markReady(): void;
  /** SIGTERM/SIGINT: /readyz answers 503 and new requests are refused from now on. */
  beginDrain(): void;
  /** Fires `shutdown` with the given reason. */
  endGrace(reason: unknown): void;
  /** Counts a request in flight; the caller passes the entry to `leave` when its response closes. */
  enter(ctx: ParameterizedContext<AppState>): LiveEntry<ParameterizedContext<AppState>>;
  /** Counts a request out. */
  leave(entry: LiveEntry<ParameterizedContext<AppState>>): void;
  /** Resolves once every request in flight now has ended (requests that start later are not waited for). */
  inFlightEnded(): Promise<void>;
}

/** Creates the lifecycle of one server, in state `starting`. */
export function createLifecycle(): Lifecycle {
  let state: LifecycleState = 'starting';
  const shutdown = new AbortController();
  // Not a Set: see LiveList for what a Set of per-request objects costs the garbage collector.
  const inFlight = new LiveList<ParameterizedContext<AppState>>();
  // One 'close' listener per request however many waits include it (reloads in a burst).
  const endings = new WeakMap<ParameterizedContext<AppState>, Promise<unknown>>();
  const ended = (ctx: ParameterizedContext<AppState>): Promise<unknown> => {
    let ending = endings.get(ctx);
    if (!ending) endings.set(ctx, (ending = new Promise((resolve) => ctx.res.once('close', resolve))));
    return ending;
  };
  return {
    get state() { return state; },
    shutdown: shutdown.signal,
    inFlight,
    markReady() { if (state === 'starting') state = 'ready'; },
    beginDrain() { state = 'draining'; },
    endGrace(reason) { if (!shutdown.signal.aborted) shutdown.abort(reason); },
    enter: (ctx) => inFlight.add(ctx),
    leave(entry) { inFlight.remove(entry); },
    inFlightEnded: () => Promise.all(Array.from(inFlight, ended)).then(() => undefined),
  };
}
