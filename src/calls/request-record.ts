import type { AttemptReport } from '../routing/run-routed.js';

/**
 * What one request did, filled along the pipeline and read once when the response has finished
 * (streams included). It is the single source for the access log, metrics, traces and the usage
 * ledger: those subscribe to `RequestEvents`; nothing on the request path calls them directly.
 *
 * Who fills what:
 * - request-context / lifecycle: requestId, startedAt, method, path, route, operation
 * - authenticate: keyId, keyName, team
 * - model-call / routing: model (the model that answered), provider, upstream, attempts,
 *   fallbackReason, streamed
 * - the call meter (billing): usage, costUsd
 * - the stream/response writer: ttfbMs (first byte written to the client)
 * - lifecycle (at finish): status (what the client got), durationMs, clientAborted
 */
export interface RequestRecord {
  requestId: string;
  /** Epoch milliseconds when the request arrived (with requestId, the ledger's key). */
  startedAt: number;
  /** performance.now() when the request arrived: the clock of ttfbMs and durationMs (see elapsedMs). */
  startedAtMonotonic: number;
  method: string;
  path: string;
  /** Route file name (e.g. `chat-completions.yaml`); undefined for unknown paths. */
  route?: string;
  /** Operation of the route (e.g. `chat.completions`). */
  operation?: string;
  /** Stable id of the calling key (its name for YAML keys, its id for managed keys). */
  keyId?: string;
  keyName?: string;
  team?: string;
  /** Canonical id of the model that answered (after fallbacks). */
  model?: string;
  /** The model the client asked for, when a fallback answered instead. */
  requestedModel?: string;
  provider?: string;
  /** Name of the provider upstream (deployment) that answered. */
  upstream?: string;
  /** Upstream calls made for this request (0 when none, e.g. the sandbox or an early refusal). */
  attempts: number;
  /** Why the first choice did not answer (`429`, `503`, `timeout`, `breaker_open`, `budget` ...). */
  fallbackReason?: string;
  /** Some upstream call went through an open breaker because every target left was open. */
  breakerForced?: boolean;
  streamed: boolean;
  usage?: RecordedUsage;
  costUsd?: number;
  /** Body bytes received from the client and forwarded (pass-through routes). */
  requestBytes?: number;
  /** Body bytes of the answer passed to the client (pass-through routes). */
  responseBytes?: number;
  /** Milliseconds from arrival to the first response byte. */
  ttfbMs?: number;
  /** Milliseconds from arrival to the end of the response. */
  durationMs?: number;
  /** HTTP status the client got. */
  status?: number;
  /** Machine code of the error the client got, if any. */
  errorCode?: string;
  /** The client went away before the response was complete. */
  clientAborted: boolean;
  /** What the response cache did (`x-gateway-cache`); unset when it was off for the call. */
  cache?: 'hit' | 'semantic-hit' | 'miss' | 'bypass' | 'store';
  /** A cache hit: what the answer cost when it was made (the hit costs 0). */
  savedUsd?: number;
  /** Provider prompt caching: what cache reads saved against the full input price. */
  promptCacheSavedUsd?: number;
}

/** Milliseconds since the request arrived (monotonic, 0.1 ms precision): ttfbMs and durationMs use it. */
export function elapsedMs(record: Pick<RequestRecord, 'startedAtMonotonic'>): number {
  return Math.round((performance.now() - record.startedAtMonotonic) * 10) / 10;
}

/** Tokens by kind, as billed. */
export interface RecordedUsage {
  input: number;
  output: number;
  cachedInput: number;
  /** Part of input written to the provider's prompt cache. */
  cacheWriteInput?: number;
  reasoning: number;
  /** True when some count is the gateway's estimate (the upstream sent none). */
  estimated: boolean;
}

/** One upstream attempt: the routing loop's report of it, numbered within its request. */
export interface AttemptRecord extends Omit<AttemptReport, 'target'> {
  requestId: string;
  /** 1-based number of this attempt within the request. */
  attempt: number;
  /** The target model (the report's `target`). */
  model: string;
}

/** Listeners of request lifecycle events; each must be cheap and must never throw into the request. */
export interface RequestListener {
  /** Called once per request, after the last byte went out (or the client went away). */
  finished?(record: Readonly<RequestRecord>): void;
  /** Called once per upstream attempt, when it ends. */
  attempt?(record: Readonly<AttemptRecord>): void;
}

/** The lifecycle event hub of one process. */
export interface RequestEvents {
  subscribe(listener: RequestListener): () => void;
  emitFinished(record: Readonly<RequestRecord>): void;
  emitAttempt(record: Readonly<AttemptRecord>): void;
}

/** Creates an event hub; a throwing listener is isolated (reported through `onListenerError`). */
export function createRequestEvents(onListenerError: (e: unknown) => void = () => undefined): RequestEvents {
  let finished: ((r: Readonly<RequestRecord>) => void)[] = [];
  let attempts: ((r: Readonly<AttemptRecord>) => void)[] = [];
  return {
    subscribe(listener) {
      const f = listener.finished?.bind(listener);
      const a = listener.attempt?.bind(listener);
      if (f) finished = [...finished, f];
      if (a) attempts = [...attempts, a];
      return () => {
        finished = finished.filter((x) => x !== f);
        attempts = attempts.filter((x) => x !== a);
      };
    },
    emitFinished(record) {
      for (const f of finished) {
        try { f(record); } catch (e) { onListenerError(e); }
      }
    },
    emitAttempt(record) {
      for (const a of attempts) {
        try { a(record); } catch (e) { onListenerError(e); }
      }
    },
  };
}
