import type { ParameterizedContext } from 'koa';
import type { Lifecycle } from '../lifecycle.js';
import { uniqueHexId } from '../../calls/unique-id.js';
import { elapsedMs, type RequestEvents, type RequestRecord } from '../../calls/request-record.js';
import type { AppState } from '../../calls/state.js';

/**
 * Opens every request, routed or not (the front step's first act): a request id (the client's
 * `x-request-id` when sane, else a new one), its RequestRecord and the `x-request-id` header;
 * one `close` listener counts it out of `lifecycle` and emits `finished` once the response has
 * really ended: after the last byte of a stream, or when the client went away. The status
 * recorded is the one the client got, whatever step set it.
 */
export function openRequestRecord(ctx: ParameterizedContext<AppState>, events: RequestEvents, lifecycle?: Lifecycle): RequestRecord {
  const startedAt = Date.now();
  const requestId = sanitizeRequestId(ctx.get('x-request-id')) ?? `req_${uniqueHexId()}`;
  const record: RequestRecord = { requestId, startedAt, startedAtMonotonic: performance.now(), method: ctx.method, path: ctx.path, attempts: 0, streamed: false, clientAborted: false };
  ctx.state.record = record;
  const res = ctx.res;
  res.setHeader('x-request-id', requestId);
  const inFlight = lifecycle?.enter(ctx);
  res.once('close', () => {
    if (inFlight) lifecycle!.leave(inFlight);
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
  return record;
}

// A client-chosen id is echoed and logged: keep it short and printable.
function sanitizeRequestId(value: string): string | undefined {
  if (!value) return undefined;
  const id = value.slice(0, 128);
  return /^[\x21-\x7e]+$/.test(id) ? id : undefined;
}
