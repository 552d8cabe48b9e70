import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import { elapsedMs, type RequestEvents, type RequestRecord } from '../request-record.js';
import type { AppState } from '../state.js';

/**
 * Outermost step of every request, routed or not: gives it a request id (the client's
 * `x-request-id` when sane, else a new one), opens its RequestRecord, and emits `finished`
 * once the response has really ended: after the last byte of a stream, or when the client went
 * away. The status recorded is the one the client got, whatever step set it.
 */
export function trackRequest(events: RequestEvents): Middleware<AppState> {
  return async (ctx, next) => {
    const startedAt = Date.now();
    const requestId = sanitizeRequestId(ctx.get('x-request-id')) ?? `req_${randomUUID().replace(/-/g, '')}`;
    const record: RequestRecord = { requestId, startedAt, startedAtMonotonic: performance.now(), method: ctx.method, path: ctx.path, attempts: 0, streamed: false, clientAborted: false };
    ctx.state.record = record;
    ctx.set('x-request-id', requestId);
    const res = ctx.res;
    res.once('close', () => {
      record.durationMs = elapsedMs(record);
      // Streams set their first byte as they open; an answer written whole (JSON, an error) has
      // its first byte go out with the rest, at the end.
      record.ttfbMs ??= record.durationMs;
      record.status = res.statusCode;
      if (!res.writableFinished) {
        record.clientAborted = true;
        ctx.state.gw?.abort.abort();
      }
      events.emitFinished(record);
    });
    await next();
  };
}

// A client-chosen id is echoed and logged: keep it short and printable.
function sanitizeRequestId(value: string): string | undefined {
  if (!value) return undefined;
  const id = value.slice(0, 128);
  return /^[\x21-\x7e]+$/.test(id) ? id : undefined;
}
