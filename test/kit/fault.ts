/**
 * What a kit upstream does with one request: the injectable faults (an error status, a reset, a
 * hang, a slow or held first byte, a stream cut / ended / stalled / reset / corrupted mid-way) and
 * the scripted answer features (fixture, rewritten data, raw answer, extra headers). `{}` is a
 * normal answer. The same Fault drives text dialects (events of an SSE fixture) and handler
 * dialects (the `chunks` of their reply count as events).
 */

import type { KitRequest } from './fake-upstream.js';

/**
 * A promise to wait on, or a function giving it per request (so one default fault can hold many
 * requests, and pick which: `undefined` = do not hold this one).
 */
export type Gate = Promise<unknown> | ((request: KitRequest) => Promise<unknown> | undefined);

/** What the upstream does with one request; `{}` is a normal answer. */
export interface Fault {
  /** Answer this status with the dialect's error body (or `errorBody`). */
  status?: number;
  message?: string;
  /** With `status`: this exact error body instead of the dialect's. */
  errorBody?: unknown;
  /** `Retry-After` header (seconds or an HTTP date). */
  retryAfter?: string;
  /** OpenAI's `retry-after-ms` header. */
  retryAfterMs?: string;
  /** Extra response headers on whatever is answered. */
  headers?: Record<string, string>;
  /** Destroy the connection without answering. */
  reset?: boolean;
  /** Never send headers (the client's deadline or disconnect ends it; `aborted` records it). */
  hang?: boolean;
  /** Wait this long before the headers. */
  firstByteDelayMs?: number;
  /**
   * Wait for this before answering: before the headers, or after `holdAfterEvents` events of a
   * stream (or chunks of a handler reply) when that is set.
   */
  holdUntil?: Gate;
  /** Streams: where `holdUntil` waits (after this many events); a text dialect's non-streamed answer then holds before its headers. */
  holdAfterEvents?: number;
  /** Text dialects: answer this instead of the fixture (`json` when not streamed, SSE `events` when streamed; stream faults apply). */
  answer?: { json?: Record<string, unknown>; events?: string[] };
  /** Answer 200 with this body and content type instead of the fixture (JSON, SSE, HTML ...). */
  rawAnswer?: { contentType: string; body: string; status?: number };
  /** Streams: send this many events, then destroy the connection (no terminal event). */
  cutAfterEvents?: number;
  /** Streams: send this many events, then reset the connection (TCP RST). */
  resetAfterEvents?: number;
  /** Streams: send this many events, then end the response cleanly without the rest (no terminal event). */
  endAfterEvents?: number;
  /** Streams: send this many events, then the provider's in-band error event. */
  failAfterEvents?: number;
  /** Streams: send this many events, then go silent. */
  stallAfterEvents?: number;
  /** Streams: send this many events, then a frame whose data is not JSON, then the rest. */
  malformedAfterEvents?: number;
  /** Streams: pause between events (ms). */
  eventDelayMs?: number;
  /** Fixture name under test/fixtures/text-upstreams/<dialect>/ (default `text`). */
  fixture?: string;
  /** Text dialects: rewrites the JSON answer / each SSE data object before it is sent. */
  transformData?: (data: Record<string, unknown>) => Record<string, unknown>;
  /** JSON answers: leave out `usage` (a provider that reports none). */
  omitUsage?: boolean;
}

/** The promise of a gate for this request (undefined: no hold). */
export function gateOf(gate: Gate, request: KitRequest): Promise<unknown> | undefined {
  return typeof gate === 'function' ? gate(request) : gate;
}

/** The headers an error fault answers with (Retry-After, retry-after-ms and the extra ones). */
export function errorHeaders(fault: Fault): Record<string, string> {
  const headers: Record<string, string> = { ...(fault.headers ?? {}) };
  if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
  if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = fault.retryAfterMs;
  return headers;
}

/** A gate a test opens by hand; each `release` opens the current gate and arms a new one for later requests. */
export interface ManualGate {
  /** The current gate (a Gate function can return it). */
  wait(): Promise<void>;
  release(): void;
}

/** A new closed ManualGate. */
export function manualGate(): ManualGate {
  let open: () => void = () => undefined;
  let current = new Promise<void>((resolve) => (open = resolve));
  return {
    wait: () => current,
    release: () => {
      const opening = open;
      current = new Promise<void>((resolve) => (open = resolve));
      opening();
    },
  };
}
