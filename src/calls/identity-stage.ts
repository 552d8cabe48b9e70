import type { CallMeter } from '../billing/call-meter.js';
import { frameMayCarryUsage, injectCostIntoFrame } from '../billing/frame-cost.js';
import type { CodecError, DialectCodec, SseFrame, StreamDecoder, SurfaceCodec } from '../codecs/codec.js';
import type { Conversation, StreamEvent } from '../codecs/internal.js';
import { generateId } from '../codecs/shared/ids.js';
import { withData } from '../sse-frame.js';
import { redactSecrets } from '../errors/redact.js';
import { errorFromStreamEvent } from '../errors/upstream-failure.js';
import { readSseBlock } from '../upstream/sse-blocks.js';
import { buildEstimatedUsageFrame, type StreamOpening } from './estimated-usage-frame.js';
import { hasAt, mustDecode, nextKeptAt, outputCharsOf, skipsNamedEvent } from './frame-scan.js';
import { ModelRenamer } from './model-rename.js';
import type { StageFailure, StreamStage } from './stream-pipeline.js';

const NO_EVENTS: StreamEvent[] = [];

/** What openPassthrough hands over: the decoder that read the first frame, and that frame's events. */
export interface OpenedDecoder {
  readonly decoder: StreamDecoder;
  readonly firstEvents: readonly StreamEvent[];
}

/**
 * The identity stage of same-format streams: the upstream's events go out as they came (under
 * the canonical model id), read by the cheap scan (frame-scan.ts) and metered. It takes each
 * network read as text (readSseText) and walks it event by event: a run of content events
 * (one `data:` line, optionally after an `event:` line, that needs no decoding) is forwarded
 * as one stretch of that text with only the model field edited, so such an event costs a
 * search for its end and a check of its model field, and no object or string of its own.
 * Every other event (the first, a finish, usage, an error, `[DONE]`, an unusual block) becomes
 * a frame and goes through the frame path as before.
 *
 * A usage-only frame the client did not ask for is held back (chat include_usage asked on its
 * behalf). A frame with a usage object is held until the decoder has seen the stream's usage
 * (the next frame at most, e.g. Anthropic's message_delta before message_stop), then sent with
 * `usage.cost`; `[DONE]` is held to the end so the cost comment precedes it. The upstream's
 * own error event goes out as it came and ends the stream. `opened` hands over the decoder that
 * already read the first frame (and its events), so that frame is not parsed twice.
 */
export class IdentityStage implements StreamStage<string> {
  private readonly decoder: StreamDecoder;
  private firstEvents: readonly StreamEvent[] | undefined;
  private readonly renamer: ModelRenamer;
  private first = true;
  private costed = false;
  // Delivered output of undecoded events, for the bill of a stream that ends without usage:
  // lengths only (the shortest event's text is scanned once, at the end, if needed).
  private skippedChars = 0;
  private skippedFrames = 0;
  private shortest = Infinity;
  private shortestData = '';
  private held: SseFrame | undefined;
  private done: SseFrame | undefined;
  // The start events seen, for an encoder that fails in the client's format: it sees the
  // stream's start (only), so it never re-opens a stream the upstream already opened
  // (Responses: no second response.created).
  private readonly starts: StreamEvent[] = [];
  private detected = false;
  private opening: StreamOpening | undefined;
  /** Where the next chat text to decode starts in the text being walked (-1: not searched yet). */
  private keptAt = -1;

  constructor(
    private readonly surface: SurfaceCodec,
    private readonly dialect: DialectCodec,
    private readonly request: Conversation,
    private readonly meter: CallMeter,
    opened?: OpenedDecoder,
  ) {
    this.decoder = opened?.decoder ?? dialect.createStreamDecoder(request);
    this.firstEvents = opened?.firstEvents;
    this.renamer = new ModelRenamer(request.model);
  }

  push(text: string, out: SseFrame[]): StageFailure | undefined {
    const n = text.length;
    const renamer = this.renamer;
    this.keptAt = -1;
    // The run of content events being forwarded: `run` holds its edited text up to `runFrom`,
    // from where the rest is still to be copied (-1: no run open).
    let run = '';
    let runFrom = -1;
    let pos = 0;
    while (pos < n) {
      if (text.charCodeAt(pos) === 10) {
        // Blank lines between events are not forwarded (a frame's wire text ends with its own).
        const from = pos;
        while (pos < n && text.charCodeAt(pos) === 10) pos++;
        if (runFrom >= 0) {
          run += text.slice(runFrom, from);
          runFrom = pos;
        }
        continue;
      }
      let end = text.indexOf('\n\n', pos);
      if (end < 0) end = n;
      const next = Math.min(end + 2, n);
      const dataStart = this.first || this.costed ? -1 : this.contentDataStart(text, pos, end);
      if (dataStart >= 0) {
        // A held usage frame precedes what follows it (the run is empty then: the frame path
        // that held it flushed the run first).
        if (this.held) this.release(out);
        if (runFrom < 0) runFrom = pos;
        this.countUndecoded(text, dataStart, end);
        const at = renamer.locate(text, dataStart, end);
        if (at >= 0) {
          run += text.slice(runFrom, at) + renamer.canonical;
          runFrom = at + renamer.fieldLength;
        }
        pos = next;
        continue;
      }
      // Any other event: the run so far goes out first, then the event as a frame.
      if (runFrom >= 0) {
        run += text.slice(runFrom, pos);
        runFrom = -1;
      }
      if (run !== '') {
        out.push(wireText(run));
        run = '';
      }
      const frame = readSseBlock(text.slice(pos, next));
      pos = next;
      if (!frame) continue;
      const failure = this.pushFrame(frame, out);
      if (failure) return failure;
    }
    if (runFrom >= 0) run += text.slice(runFrom, pos);
    if (run !== '') out.push(wireText(run));
    return undefined;
  }

  end(): StageFailure | undefined {
    const error = this.observe(this.decoder.end());
    return error ? { error } : undefined;
  }

  beforeFinish(): void {
    // Without usage from the upstream, the meter bills the output it saw: each undecoded
    // frame's length minus its envelope (the shortest frame's length less its own output).
    if (this.costed || this.skippedFrames === 0) return;
    const envelope = this.shortest - outputCharsOf(this.shortestData);
    this.meter.addOutputChars(Math.max(0, this.skippedChars - this.skippedFrames * envelope));
  }

  close(cost: number, failed: boolean): readonly SseFrame[] {
    const upstreamUsage = this.costed;
    this.costed = true;
    const out = this.held ? [injectCostIntoFrame(this.held, cost)] : [];
    this.held = undefined;
    const request = this.request;
    if (!failed && !upstreamUsage && request.includeUsage) {
      // The upstream never reported usage: the client that asked for it gets what the meter billed, marked estimated.
      const opening = this.opening ?? { id: generateId('chatcmpl-'), created: Math.floor(Date.now() / 1000) };
      const frame = buildEstimatedUsageFrame(this.dialect.name, request.model, opening, this.meter.usage(), cost);
      if (frame) out.push(frame);
    }
    if (!failed && this.done) out.push(this.done);
    return out;
  }

  fail(error: CodecError): readonly SseFrame[] {
    const encoder = this.surface.createStreamEncoder(this.request);
    for (const start of this.starts) encoder.encode(start);
    return encoder.fail(error);
  }

  /**
   * Where the data of the event at `text[pos, end)` starts when it is a content event the scan
   * forwards unread (mustDecode would say no): one `data:` line ending in `}`, after an
   * `event:` line naming a content event or, without one, a chat chunk with no finish, usage or
   * error. -1 for anything else.
   */
  private contentDataStart(text: string, pos: number, end: number): number {
    if (text.charCodeAt(end - 1) !== 125 /* } */) return -1;
    if (hasAt(text, 'data: ', pos)) {
      const dataStart = pos + 6;
      if (text.indexOf('\n', dataStart) !== end || hasAt(text, '[DONE]', dataStart)) return -1;
      if (this.keptAt < dataStart) this.keptAt = nextKeptAt(text, dataStart);
      return this.keptAt >= end ? dataStart : -1;
    }
    if (hasAt(text, 'event: ', pos)) {
      const nl = text.indexOf('\n', pos + 7);
      if (nl <= pos + 7 || nl >= end || !hasAt(text, 'data: ', nl + 1)) return -1;
      const dataStart = nl + 7;
      if (text.indexOf('\n', dataStart) !== end) return -1;
      return skipsNamedEvent(text.slice(pos + 7, nl)) ? dataStart : -1;
    }
    return -1;
  }

  /** One event as a frame: decoded when the scan says so, metered, and appended to `out`. */
  private pushFrame(frame: SseFrame, out: SseFrame[]): StageFailure | undefined {
    const decode = mustDecode(frame, this.first);
    this.first = false;
    if (!decode) {
      this.countUndecoded(frame.data, 0, frame.data.length);
      // A content frame (the scan found no usage, finish, error or end in it) goes out at once.
      if (!frame.data.endsWith('[DONE]')) {
        this.release(out, this.renamer.rename(frame));
        return undefined;
      }
    }
    const events = !decode ? NO_EVENTS : this.firstEvents ?? this.decoder.decode(frame);
    this.firstEvents = undefined;
    const error = this.observe(events);
    // A frame the gateway found malformed is not forwarded: the client gets its own error event.
    if (error && this.detected) {
      this.release(out);
      return { error };
    }
    // The upstream's own error event is already in the client's format: it goes out as it
    // came (minus any credential it quotes) and ends the stream (no second error event).
    if (error) {
      const renamed = this.renamer.rename(frame);
      this.release(out, withData(renamed, redactSecrets(renamed.data)));
      return { error, errorWritten: true };
    }
    const usageOnly = events.length > 0 && events.every((e) => e.type === 'usage') && frameMayCarryUsage(frame);
    if (usageOnly && !this.request.includeUsage) return undefined;
    if (frame.data.trim() === '[DONE]') {
      this.done = frame;
      return undefined;
    }
    if (!this.costed && frameMayCarryUsage(frame) && !events.some((e) => e.type === 'start')) {
      // The opening frame (message_start, response.created) carries only initial usage: it
      // goes out at once so the first event is never delayed; a later usage frame waits for
      // the final usage so it can carry the cost.
      this.release(out);
      this.held = this.renamer.rename(frame);
      return undefined;
    }
    this.release(out, this.renamer.rename(frame));
    return undefined;
  }

  /**
   * Counts the data `text[start, end)` of an event forwarded undecoded, for the bill of a
   * stream that ends without usage (beforeFinish): its length, and its text when it is the
   * shortest so far (sliced only then).
   */
  private countUndecoded(text: string, start: number, end: number): void {
    const length = end - start;
    this.skippedChars += length;
    this.skippedFrames++;
    if (length < this.shortest) {
      this.shortest = length;
      this.shortestData = start === 0 && end === text.length ? text : text.slice(start, end);
    }
  }

  private observe(events: readonly StreamEvent[]): CodecError | undefined {
    for (const e of events) {
      if (e.type === 'error') {
        this.detected = e.detected === true;
        const err = errorFromStreamEvent(e);
        return { status: err.status, type: err.type, code: err.code, message: err.message };
      }
      if (e.type === 'start') {
        this.starts.push(e);
        this.opening ??= { id: e.id, created: e.created };
      }
      this.meter.observe(e);
      if (e.type === 'usage') this.costed = true;
    }
    return undefined;
  }

  /** Appends the held frame (if any) and `frame` to the batch, with the cost once it is known. */
  private release(out: SseFrame[], frame?: SseFrame): void {
    if (this.held) {
      out.push(this.costed ? injectCostIntoFrame(this.held, this.meter.cost()) : this.held);
      this.held = undefined;
    }
    if (frame) out.push(this.costed ? injectCostIntoFrame(frame, this.meter.cost()) : frame);
  }
}

/** Wire text of several forwarded events as one item of the writer's batch (only its `raw` is read). */
function wireText(text: string): SseFrame {
  return { data: '', raw: text };
}
