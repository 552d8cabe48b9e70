import type { WebSocket } from 'ws';
import type { Pricing } from './pricing.js';
import type { SpendHold } from './spend-hold.js';
import { roundUsd } from './usd.js';

/** The limits a realtime session was granted (its signed claims carry them). */
export interface RealtimeSessionTerms {
  readonly max_duration_seconds: number;
  readonly max_budget_usd: number;
}

/** Close code of a session ended by its budget or duration (1000: normal closure). */
export const REALTIME_LIMIT_CLOSE_CODE = 1000;
/** Close code of a session refused because the key's budget cannot cover it (1008: policy violation). */
export const REALTIME_BUDGET_EXHAUSTED_CLOSE_CODE = 1008;

/** How long a session may last: the shorter of its duration and what its budget buys. */
export function realtimeSessionLimit(claims: RealtimeSessionTerms, pricing: Pricing): { seconds: number; reason: 'max_budget_reached' | 'max_duration_reached' } {
  const perSecond = pricing.audio_second ?? 0;
  const affordable = perSecond > 0 ? claims.max_budget_usd / perSecond : Infinity;
  return affordable < claims.max_duration_seconds
    ? { seconds: affordable, reason: 'max_budget_reached' }
    : { seconds: claims.max_duration_seconds, reason: 'max_duration_reached' };
}

/**
 * Meters an open realtime session by wall time at the model's `audio_second` price (an upper
 * bound on what a second of session can cost; see gateway.yaml). The session is closed with
 * 1000 and reason `max_budget_reached` or `max_duration_reached` once the shorter limit runs
 * out, whichever provider serves it. The key's budget is reserved for the whole session when
 * it opens (closed at once with 1008 `budget_exhausted` when it cannot be) and settled with the
 * elapsed time when it closes.
 */
export function meterRealtimeSession(socket: WebSocket, claims: RealtimeSessionTerms, pricing: Pricing, hold?: SpendHold, now: () => number = Date.now): void {
  const startedAt = now();
  const limit = realtimeSessionLimit(claims, pricing);
  const perSecond = pricing.audio_second ?? 0;
  const close = (code: number, reason: string) => {
    if (socket.readyState === socket.OPEN || socket.readyState === socket.CONNECTING) socket.close(code, reason);
  };
  const timer = setTimeout(() => close(REALTIME_LIMIT_CLOSE_CODE, limit.reason), Math.max(0, Math.floor(limit.seconds * 1000)));
  timer.unref?.();
  let reserved: Promise<unknown> = Promise.resolve();
  if (hold && perSecond > 0) {
    reserved = hold.reserve(roundUsd(limit.seconds * perSecond), 0).catch(() => {
      clearTimeout(timer);
      close(REALTIME_BUDGET_EXHAUSTED_CLOSE_CODE, 'budget_exhausted');
    });
  }
  socket.once('close', () => {
    clearTimeout(timer);
    const seconds = Math.min(limit.seconds, (now() - startedAt) / 1000);
    void reserved.then(() => hold?.settle(roundUsd(seconds * perSecond), 0));
  });
}
