import type { CallExchange } from './exchange.js';
import { elapsedMs } from './request-record.js';
import type { CallMeter } from '../billing/call-meter.js';
import { COST_HEADER, closeWithCost } from '../billing/frame-cost.js';
import type { CodecError, SseFrame } from '../codecs/codec.js';
import { GatewayError, isGatewayError } from '../errors/gateway-error.js';
import { TOTAL_DEADLINE } from '../upstream/call-upstream.js';
import { openSse, writeFrames } from './sse-response.js';
import type { CallSignal } from '../upstream/request-abort.js';

/** A stage's verdict that the stream failed: it ends with this error. */
export interface StageFailure {
  /** An error event, or the upstream ended without its terminal event. */
  readonly error: CodecError;
  /** The frames already carry the error (a same-format error event forwarded as it came). */
  readonly errorWritten?: boolean;
}

/**
 * The middle of the stream pipeline (decode -> meter -> encode): a translating stage (internal
 * events to the client's surface) or the identity stage of same-format calls (frames as they
 * came, read by a cheap scan). Either meters what passes. Frames are appended to the writer's
 * batch (`out`) rather than returned: this runs for every upstream event, and a result object
 * and array per event cost more than the work most events need.
 */
export interface StreamStage<I> {
  /** Appends what one upstream item makes to `out`; a failure ends the stream. */
  push(item: I, out: SseFrame[]): StageFailure | undefined;
  /** The upstream ended normally: a failure when it ended without its terminal event. */
  end(): StageFailure | undefined;
  /**
   * The closing frames once the cost is known: a held usage frame, and (unless the stream
   * failed) the terminators such as [DONE] or message_stop.
   */
  close(costUsd: number, failed: boolean): readonly SseFrame[];
  /** The client surface's own error frames. */
  fail(error: CodecError): readonly SseFrame[];
  /** Called once before the meter settles (a stage that metered lazily adds what it saw). */
  beforeFinish?(): void;
}

/** An upstream stream whose first batch has arrived (the routing loop waited for it). */
export interface StreamInput<I> {
  readonly first: readonly I[];
  next(): Promise<IteratorResult<readonly I[]>>;
  /** Lets go of the upstream (called once, whatever happened); a promise only when that waits. */
  close(): Promise<void> | void;
  /** Maps a failure of `next()` (reset, idle deadline) to the error the client is told. */
  failure(e: unknown): CodecError | undefined;
}

const NO_FRAMES: readonly SseFrame[] = [];

/**
 * The one stream writer of text calls: upstream batches go through the stage and out to the
 * client, one write per batch, with headers sent along the first. The stream-end rule lives
 * here: an error from the stage (an error event, a decoder's end without the terminal event)
 * or a failure of the upstream after the first byte ends the stream with the surface's own
 * error event, never as if finished; either way the cost of what was delivered is settled and
 * written as the closing `x-gateway-cost` comment and HTTP trailer.
 */
export async function writeStream<I>(
  ctx: CallExchange,
  input: StreamInput<I>,
  stage: StreamStage<I>,
  headers: Record<string, string>,
  meter: CallMeter,
): Promise<void> {
  const gw = ctx.state.gw;
  const res = ctx.res;
  ctx.respond = false;
  // The request id is on the response already (track-request.ts).
  openSse(res, headers);
  res.setHeader('trailer', COST_HEADER);
  gw.record.ttfbMs = elapsedMs(gw.record);
  let failed: CodecError | undefined;
  let written = false;
  const out: SseFrame[] = [];
  const holdWrites = writeHold(res);
  try {
    let batch: readonly I[] | undefined = input.first;
    while (batch && !res.destroyed) {
      for (const item of batch) {
        const failure = stage.push(item, out);
        if (failure) {
          failed = failure.error;
          written = failure.errorWritten === true;
          break;
        }
      }
      holdWrites();
      const backedUp = writeFrames(res, out);
      out.length = 0;
      if (backedUp) await backedUp;
      if (failed) break;
      const step = await input.next();
      batch = step.done ? undefined : step.value;
    }
    if (!failed && !res.destroyed) {
      const failure = stage.end();
      failed = failure?.error;
      written = failure?.errorWritten === true;
    }
  } catch (e) {
    failed = clientGone(gw.abort) ? undefined : input.failure(e) ?? (isGatewayError(e) ? e : undefined);
  }
  try {
    const closing = input.close();
    if (closing) await closing;
    stage.beforeFinish?.();
    const cost = await meter.finish();
    if (res.destroyed || (!failed && clientGone(gw.abort))) return;
    // The last frames, the cost comment and the closing frames leave in one write. The comment
    // goes after a failed stream's error event, and before a finished one's closing frames
    // ([DONE] stays the last data line).
    if (failed) out.push(...stage.close(cost, true), ...(written ? NO_FRAMES : stage.fail(failed)), closeWithCost(res, cost));
    else out.push(closeWithCost(res, cost), ...stage.close(cost, false));
    await writeFrames(res, out);
  } finally {
    res.end();
  }
}

/**
 * Holds a stream's writes to the client until the event loop's current turn ends (corked, then
 * uncorked by setImmediate), instead of Node's own flush at the next tick. An upstream often
 * brings its last events and its end in the same network read: they then leave with the
 * closing frames and the chunked terminator in one write (end() uncorks fully) rather than
 * two, and a write to a loopback or LAN socket costs the sender a syscall and the receiver's
 * wake-up. Nothing waits longer than that turn, so time to first byte is unchanged.
 */
function writeHold(res: CallExchange['res']): () => void {
  let held = false;
  const release = (): void => {
    held = false;
    // end() has uncorked already; a later response on the same connection is not ours to flush.
    if (!res.writableEnded && !res.destroyed) res.uncork();
  };
  return () => {
    if (held) return;
    held = true;
    res.cork();
    setImmediate(release);
  };
}

/** Whether the client itself went away (not the total deadline). */
export function clientGone(signal: CallSignal): boolean {
  return signal.aborted && signal.reason !== TOTAL_DEADLINE;
}

/** The error a stream ends with when its upstream fails after the first byte. */
export function streamFailure(signal: CallSignal, what: string): GatewayError {
  if (signal.aborted && signal.reason === TOTAL_DEADLINE) return new GatewayError(504, 'timeout_error', 'upstream_timeout', 'The request reached its total deadline before the answer was complete.');
  return new GatewayError(502, 'upstream_error', 'upstream_stream_truncated', `The upstream stream of ${what} failed before it was complete.`);
}
