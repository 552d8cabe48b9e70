import { Agent, errors as undiciErrors } from './undici-core.js';
import type { UpstreamFailure } from './upstream-failure.js';
import type { CallSignal } from './request-abort.js';
import { dispatchUpstream, type UpstreamHead } from './upstream-body.js';

/** Deadlines of one attempt (routing `timeouts`). */
export interface AttemptTimeouts { readonly connectMs: number; readonly firstByteMs: number; readonly idleMs: number }

/**
 * What the routing loop learns from the upstream calls made inside one attempt: how many went
 * out, how the last one failed (if it did) and when its first byte came. Operations that map
 * failures to errors themselves still leave the typed failure here for the loop to judge.
 */
export interface AttemptTrace {
  calls: number;
  failure?: UpstreamFailure;
  firstByteAt?: number;
  /** The request's running count of upstream calls (all attempts, both sides of a hedge). */
  total?: { calls: number };
}

/** One upstream HTTP request. */
export interface UpstreamCall {
  url: string;
  method?: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: string | Uint8Array | Buffer;
  /** Aborted when the client goes away or the request's total deadline passes (reason TOTAL_DEADLINE). */
  signal: CallSignal;
  timeouts: AttemptTimeouts;
  trace?: AttemptTrace;
}

/** A call that got no answer: the connection failed, a deadline passed, or it was aborted. */
export interface UpstreamFailed {
  readonly ok: false;
  readonly failure: Exclude<UpstreamFailure, { kind: 'status' }>;
  readonly error: unknown;
}

/** The reason the total-deadline abort carries, so it is told apart from a client abort. */
export const TOTAL_DEADLINE = Object.freeze(new Error('total deadline passed'));

// Connect timeouts are an Agent setting: one keep-alive pool per distinct connect timeout
// (configs use one or two), created on first use and shared by every call.
const agents = new Map<number, Agent>();
function agentFor(connectMs: number): Agent {
  let agent = agents.get(connectMs);
  if (!agent) {
    agent = newUpstreamAgent(connectMs);
    agents.set(connectMs, agent);
  }
  return agent;
}

/** A keep-alive pool per origin, as every upstream call uses (warm-up.ts makes a throwaway one). */
export function newUpstreamAgent(connectMs: number): Agent {
  return new Agent({ connections: 256, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, pipelining: 1, connect: { timeout: connectMs } });
}

// undici's top-level request() parses its URL string into a URL object on every call (about
// 5 us); calls to one model go to one URL, so its origin and path are split once.
const splitUrls = new Map<string, { origin: string; path: string }>();
function originAndPath(url: string): { origin: string; path: string } {
  let split = splitUrls.get(url);
  if (!split) {
    const u = new URL(url);
    split = { origin: u.origin, path: u.pathname + u.search };
    // Job polls carry ids in their URLs: bounded, and rebuilt from scratch when full.
    if (splitUrls.size >= 1024) splitUrls.clear();
    splitUrls.set(url, split);
  }
  return split;
}

/**
 * The one function that calls an upstream: sends one request and returns its answer, any
 * status (an error status is also left in the trace as a `status` failure, with its headers),
 * or a typed failure (`connect_error`, `timeout` by phase, `reset`, `aborted`). It never
 * throws and never reads the body, so streams flow through unbuffered. Every upstream call of
 * the gateway, text and mapped operations alike, goes through here.
 */
export async function callUpstream(call: UpstreamCall): Promise<UpstreamHead | UpstreamFailed> {
  if (call.trace) {
    call.trace.calls++;
    if (call.trace.total) call.trace.total.calls++;
  }
  try {
    const { origin, path } = originAndPath(call.url);
    const res = await dispatchUpstream(agentFor(call.timeouts.connectMs), {
      origin,
      path,
      method: call.method ?? 'POST',
      headers: call.headers,
      body: call.body,
      headersTimeout: call.timeouts.firstByteMs,
      bodyTimeout: call.timeouts.idleMs,
    }, call.signal);
    if (call.trace) call.trace.firstByteAt = Date.now();
    // An error status is the attempt's failure (its headers say when to retry); a success
    // leaves the headers unparsed unless someone reads them.
    if (call.trace) call.trace.failure = res.status >= 400 ? { kind: 'status', status: res.status, headers: res.headers } : undefined;
    return res;
  } catch (e) {
    const failure = classifyTransportError(e, call.signal);
    if (call.trace) call.trace.failure = failure;
    return { ok: false, failure, error: e };
  }
}

/**
 * Names an undici (or body read) failure: which deadline passed, a refused connection, a
 * connection that broke after it was made, or an abort (the client's, or the total deadline).
 */
export function classifyTransportError(e: unknown, signal: CallSignal): Exclude<UpstreamFailure, { kind: 'status' }> {
  if (signal.aborted) return signal.reason === TOTAL_DEADLINE ? { kind: 'timeout', phase: 'total' } : { kind: 'aborted' };
  if (e instanceof undiciErrors.ConnectTimeoutError) return { kind: 'timeout', phase: 'connect' };
  if (e instanceof undiciErrors.HeadersTimeoutError) return { kind: 'timeout', phase: 'first_byte' };
  if (e instanceof undiciErrors.BodyTimeoutError) return { kind: 'timeout', phase: 'idle' };
  const code = (e as { code?: string }).code ?? (e as { cause?: { code?: string } }).cause?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return { kind: 'connect_error' };
  if (e instanceof undiciErrors.RequestAbortedError) return { kind: 'aborted' };
  return { kind: 'reset' };
}
