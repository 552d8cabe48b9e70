/**
 * Writes the kit's answers: JSON bodies, and event streams (SSE fixtures, or the chunks of a
 * handler reply) with the mid-stream faults of a `Fault` applied event by event.
 */
import type { ServerResponse } from 'node:http';
import type { Fault } from './fault.js';

/** Pause between the chunks of a handler reply, so a gateway that buffers would be caught. */
export const CHUNK_PAUSE_MS = 5;

/** Answers `status` with a JSON body (nothing when the client is already gone). */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** How a stream is written besides its fault. */
export interface EventOptions {
  /** The provider's in-band error event (`failAfterEvents`); without it the stream just ends. */
  errorEvent?: (message: string) => string;
  /** Default pause between events (the fault's `eventDelayMs` wins). */
  pauseMs?: number;
  /** Waits on the fault's hold (the upstream counts held requests). */
  hold: () => Promise<void>;
  /** Called after each event written (the request counts them). */
  sent?: () => void;
}

/** Writes `events` (headers already sent), applying the stream faults of `fault`. */
export async function writeEvents(res: ServerResponse, events: Array<string | Buffer>, fault: Fault, options: EventOptions): Promise<void> {
  const pause = fault.eventDelayMs ?? options.pauseMs ?? 0;
  for (let i = 0; i < events.length; i++) {
    if (res.destroyed) return;
    if (fault.failAfterEvents === i) {
      res.end(options.errorEvent?.(fault.message ?? 'The upstream model failed mid-stream.') ?? '');
      return;
    }
    if (fault.stallAfterEvents === i) return;
    if (fault.endAfterEvents === i) break;
    if (fault.cutAfterEvents === i) {
      res.socket?.destroy();
      return;
    }
    if (fault.resetAfterEvents === i) {
      res.socket?.resetAndDestroy();
      return;
    }
    if (fault.holdUntil && fault.holdAfterEvents === i) {
      await options.hold();
      if (res.destroyed) return;
    }
    if (fault.malformedAfterEvents === i) res.write(malformedFrame(events[i]!));
    res.write(typeof events[i] === 'string' ? transformEvent(events[i] as string, fault.transformData) : events[i]!);
    options.sent?.();
    if (pause > 0) await delay(pause);
  }
  if (fault.holdUntil && fault.holdAfterEvents !== undefined && fault.holdAfterEvents >= events.length && fault.endAfterEvents === undefined) await options.hold();
  if (!res.destroyed) res.end();
}

/** A frame of the same event type whose data is cut-off JSON. */
function malformedFrame(event: string | Buffer): string {
  const type = /^event: (\S+)/m.exec(event.toString())?.[0];
  return `${type ? `${type}\n` : ''}data: {"truncated": \n\n`;
}

function transformEvent(event: string, transform: Fault['transformData']): string {
  if (!transform) return event;
  return event.replace(/^data: (\{.*\})$/m, (_all, json: string) => `data: ${JSON.stringify(transform(JSON.parse(json) as Record<string, unknown>))}`);
}

/** Resolves after `ms`. */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
