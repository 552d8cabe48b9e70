import type { ParameterizedContext } from 'koa';
import type { CallMeter } from '../billing/call-meter.js';
import { frameMayCarryUsage, injectCostIntoFrame } from '../billing/frame-cost.js';
import { estimateConversationTokens } from '../billing/token-counter.js';
import type { CodecError, DialectCodec, DialectRequest, DialectTarget, SseFrame, StreamDecoder, SurfaceCodec } from '../codecs/codec.js';
import type { Conversation, StreamEvent } from '../codecs/internal.js';
import { generateId } from '../codecs/shared/ids.js';
import { isRecord } from '../codecs/shared/json.js';
import { errors, isGatewayError } from '../errors/gateway-error.js';
import { classifyStreamContentType } from '../errors/stream-response.js';
import { redactSecrets } from '../errors/redact.js';
import { errorFromStreamEvent } from '../errors/upstream-failure.js';
import type { OperationCall } from '../providers/types.js';
import type { UpstreamResponse } from '../upstream/http-client.js';
import { discardBody } from '../upstream/call-upstream.js';
import { targetOf, sendDialectRequest } from '../upstream/dialect-backend.js';
import { mapCallError } from '../upstream/map-call-error.js';
import { withData } from '../codecs/shared/sse-frame.js';
import { readSseBlocks } from '../upstream/sse-blocks.js';
import { createModelRenamer } from './model-rename.js';
import { stripGatewayFields } from './resolve-model.js';
import type { AppState } from './state.js';
import { streamFailure } from './text-call.js';
import { writeStream, type StreamInput, type StreamStage } from './stream-pipeline.js';
import { mustDecode, outputCharsOf } from './frame-scan.js';
import { buildEstimatedUsageFrame, type StreamOpening } from './estimated-usage-frame.js';

const NO_EVENTS: StreamEvent[] = [];

/** Characters per token of the output estimate written when an upstream reports no usage. */
const CHARS_PER_TOKEN = 3;

/**
 * The request to send for a same-format call: the client's own body (unknown fields kept)
 * with the upstream model name, minus gateway-only fields. Path, headers and stream options
 * come from the dialect's own encoding of the same request, so the upstream is always asked
 * for usage in streams exactly as a translated call would ask. A model whose catalog entry says
 * `max_tokens_field: max_completion_tokens` (OpenAI reasoning models) gets the client's
 * `max_tokens` under that name.
 */
function passthroughRequest(dialect: DialectCodec, request: Conversation, call: OperationCall): DialectRequest {
  const target = targetOf(call);
  const envelope = passthroughEnvelope(dialect, target, request.stream === true);
  const body: Record<string, unknown> = { ...stripGatewayFields(call.body), model: target.upstreamModel };
  if (envelope.streamOptions !== undefined) body.stream_options = envelope.streamOptions;
  const field = call.model.max_tokens_field;
  if (field === 'max_completion_tokens' && body.max_tokens !== undefined) {
    body.max_completion_tokens ??= body.max_tokens;
    delete body.max_tokens;
  } else if (field === 'max_tokens' && body.max_completion_tokens !== undefined) {
    body.max_tokens ??= body.max_completion_tokens;
    delete body.max_completion_tokens;
  }
  return envelope.headers ? { path: envelope.path, headers: envelope.headers, body } : { path: envelope.path, body };
}

/** What a same-format call takes from the dialect's own encoding: path, headers, stream options. */
interface PassthroughEnvelope { readonly path: string; readonly headers?: Record<string, string>; readonly streamOptions?: unknown }

const envelopes = new WeakMap<DialectTarget, Map<DialectCodec, [plain?: PassthroughEnvelope, stream?: PassthroughEnvelope]>>();

/**
 * The envelope of a same-format call to `target`, learned once per dialect, target and stream
 * flag from the dialect's encoding of an empty conversation. Each dialect derives path, headers
 * and stream options from the target and the stream flag only (test/server/passthrough-envelope
 * checks this against full requests); encoding per request cost a few microseconds.
 */
export function passthroughEnvelope(dialect: DialectCodec, target: DialectTarget, stream: boolean): PassthroughEnvelope {
  let byDialect = envelopes.get(target);
  if (!byDialect) envelopes.set(target, (byDialect = new Map()));
  let pair = byDialect.get(dialect);
  if (!pair) byDialect.set(dialect, (pair = []));
  const slot = stream ? 1 : 0;
  let envelope = pair[slot];
  if (!envelope) {
    const empty: Conversation = { model: target.upstreamModel, system: [], messages: [], stream };
    const encoded = dialect.encodeRequest(empty, target);
    envelope = pair[slot] = { path: encoded.path, headers: encoded.headers, streamOptions: encoded.body.stream_options };
  }
  return envelope;
}

/**
 * Same-format, non-streamed: the upstream JSON comes back as it is, under the canonical model
 * id and with what SPEC 2.4 requires present (`id`, integer `created`, `usage`; usage the
 * upstream omitted is estimated and marked `estimated: true`).
 */
export async function passthroughJson(dialect: DialectCodec, request: Conversation, call: OperationCall): Promise<unknown> {
  const res = await sendDialectRequest(dialect, passthroughRequest(dialect, request, call), call);
  let text: string;
  try {
    text = await res.body.text();
  } catch (e) {
    throw mapCallError(e, call);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!isRecord(body)) {
    if (call.trace) call.trace.failure = { kind: 'status', status: 502, headers: {} };
    throw errors.invalidUpstreamResponse(call.providerName, 'an answer that is not a JSON object');
  }
  completeAnswer(body, request, dialect.name);
  return body;
}

/** Fills what clients rely on in a passthrough answer (canonical model, id, created, usage). */
function completeAnswer(body: Record<string, unknown>, request: Conversation, format: string): void {
  body.model = request.model;
  if (typeof body.id !== 'string' || body.id === '') body.id = `gen-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
  if (format === 'openai-chat' && !Number.isInteger(body.created)) body.created = Math.floor(Date.now() / 1000);
  if (format === 'openai-responses' && !Number.isInteger(body.created_at)) body.created_at = Math.floor(Date.now() / 1000);
  if (isRecord(body.usage)) return;
  const input = estimateConversationTokens(request);
  const output = Math.ceil(JSON.stringify(body.choices ?? body.content ?? body.output ?? '').length / CHARS_PER_TOKEN);
  body.usage = format === 'openai-chat'
    ? { prompt_tokens: input, completion_tokens: output, total_tokens: input + output, estimated: true }
    : format === 'openai-responses'
      ? { input_tokens: input, output_tokens: output, total_tokens: input + output, estimated: true }
      : { input_tokens: input, output_tokens: output, estimated: true };
}

/** A same-format stream whose first frames have arrived (nothing written to the client yet). */
export interface PassthroughStream {
  readonly dialect: DialectCodec;
  readonly request: Conversation;
  readonly call: OperationCall;
  readonly upstream: UpstreamResponse;
  readonly batches: AsyncIterator<SseFrame[]>;
  readonly first: SseFrame[];
  /** The dialect's decoder, which has read the first frame (its events are `firstEvents`). */
  readonly decoder: StreamDecoder;
  readonly firstEvents: readonly StreamEvent[];
}

/**
 * Opens a same-format stream and waits for its first frames, so a failure or stall before the
 * first byte is still the routing loop's to retry. An upstream error as the first event fails
 * the attempt like the same status would.
 */
export async function openPassthrough(dialect: DialectCodec, request: Conversation, call: OperationCall): Promise<PassthroughStream> {
  const upstream = await sendDialectRequest(dialect, passthroughRequest(dialect, request, call), call);
  // A 200 that is not an event stream (a proxy's page, a server that ignored `stream: true`)
  // fails the attempt before anything reached the client.
  const notSse = classifyStreamContentType(call.providerName, upstream.headers);
  if (notSse) {
    discardBody(upstream.body);
    if (call.trace) call.trace.failure = { kind: 'status', status: 502, headers: {} };
    throw notSse;
  }
  const batches = readSseBlocks(upstream.body)[Symbol.asyncIterator]();
  let first: IteratorResult<SseFrame[]>;
  try {
    first = await batches.next();
  } catch (e) {
    discardBody(upstream.body);
    throw mapCallError(e, call);
  }
  const frames = first.done ? [] : first.value;
  // Nothing at all (a 200 with an empty or non-SSE body) or an error as the first event: the
  // attempt failed before anything reached the client, so the loop may still retry it.
  const decoder = dialect.createStreamDecoder(request);
  const opening = frames.length > 0 ? decoder.decode(frames[0]!) : decoder.end();
  const error = opening.find((ev) => ev.type === 'error');
  if (error && error.type === 'error') {
    discardBody(upstream.body);
    if (call.trace) call.trace.failure = { kind: 'status', status: error.status, headers: {} };
    throw errorFromStreamEvent(error);
  }
  if (frames.length === 0) {
    if (call.trace) call.trace.failure = { kind: 'status', status: 502, headers: {} };
    throw errors.invalidUpstreamResponse(call.providerName, 'a stream with no events');
  }
  return { dialect, request, call, upstream, batches, first: frames, decoder, firstEvents: opening };
}

/**
 * Same-format stream: the stream pipeline with the identity stage. Each upstream frame is
 * forwarded as it came (under the canonical model id). The dialect's decoder reads only the
 * frames that may carry the start, usage, a finish, an error or the end (frame-scan.ts;
 * content deltas are measured, not parsed). A usage-only frame the client did not ask for is
 * held back (chat include_usage asked on its behalf). A frame with a usage object is held until
 * the decoder has seen the stream's usage (the next frame at most, e.g. Anthropic's
 * message_delta before message_stop), then sent with `usage.cost`; `[DONE]` is held to the end
 * so the cost comment precedes it. The upstream's own error event goes out as it came and ends
 * the stream.
 */
export function writePassthroughStream(
  ctx: ParameterizedContext<AppState>,
  surface: SurfaceCodec,
  stream: PassthroughStream,
  headers: Record<string, string>,
  meter: CallMeter,
): Promise<void> {
  const { call } = stream;
  const input: StreamInput<SseFrame> = {
    first: stream.first,
    next: () => stream.batches.next(),
    close: () => { discardBody(stream.upstream.body); },
    failure: (e) => {
      const mapped = mapCallError(e, call);
      return isGatewayError(mapped) ? mapped : streamFailure(call.signal, call.operation);
    },
  };
  return writeStream(ctx, input, createIdentityStage(surface, stream.dialect, stream.request, meter, stream), headers, meter);
}

/**
 * The identity stage: frames out as they came in, read by the cheap scan and metered. `opened`
 * hands over the decoder that already read the first frame (and its events), so that frame is
 * not parsed twice.
 */
export function createIdentityStage(
  surface: SurfaceCodec,
  dialect: DialectCodec,
  request: Conversation,
  meter: CallMeter,
  opened?: { readonly decoder: StreamDecoder; readonly firstEvents: readonly StreamEvent[] },
): StreamStage<SseFrame> {
  const decoder = opened?.decoder ?? dialect.createStreamDecoder(request);
  let firstEvents = opened?.firstEvents;
  const renameModel = createModelRenamer(request.model);
  let first = true;
  let costed = false;
  let skippedChars = 0;
  let skippedFrames = 0;
  let shortest = Infinity;
  let shortestData = '';
  let held: SseFrame | undefined;
  let done: SseFrame | undefined;
  // The start events seen, for an encoder that fails in the client's format: it sees the
  // stream's start (only), so it never re-opens a stream the upstream already opened
  // (Responses: no second response.created). Made only when the stream fails.
  const starts: StreamEvent[] = [];
  let detected = false;
  let opening: StreamOpening | undefined;
  const observe = (events: readonly StreamEvent[]): CodecError | undefined => {
    for (const e of events) {
      if (e.type === 'error') {
        detected = e.detected === true;
        const err = errorFromStreamEvent(e);
        return { status: err.status, type: err.type, code: err.code, message: err.message };
      }
      if (e.type === 'start') {
        starts.push(e);
        opening ??= { id: e.id, created: e.created };
      }
      meter.observe(e);
      if (e.type === 'usage') costed = true;
    }
    return undefined;
  };
  // Appends the held frame (if any) and `frame` to the batch, with the cost once it is known.
  const release = (out: SseFrame[], frame?: SseFrame): void => {
    if (held) {
      out.push(costed ? injectCostIntoFrame(held, meter.cost()) : held);
      held = undefined;
    }
    if (frame) out.push(costed ? injectCostIntoFrame(frame, meter.cost()) : frame);
  };
  return {
    push(frame, out) {
      const decode = mustDecode(frame, first);
      first = false;
      if (!decode) {
        // Delivered output of undecoded frames, for the bill of a stream that ends without
        // usage: only lengths are kept here (the text is scanned once, at the end, if needed).
        skippedChars += frame.data.length;
        skippedFrames++;
        if (frame.data.length < shortest) { shortest = frame.data.length; shortestData = frame.data; }
        // A content frame (the scan found no usage, finish, error or end in it) goes out at once.
        if (!frame.data.endsWith('[DONE]')) {
          release(out, renameModel(frame));
          return undefined;
        }
      }
      const events = !decode ? NO_EVENTS : firstEvents ?? decoder.decode(frame);
      firstEvents = undefined;
      const error = observe(events);
      // A frame the gateway found malformed is not forwarded: the client gets its own error event.
      if (error && detected) {
        release(out);
        return { error };
      }
      // The upstream's own error event is already in the client's format: it goes out as it
      // came (minus any credential it quotes) and ends the stream (no second error event).
      if (error) {
        const renamed = renameModel(frame);
        release(out, withData(renamed, redactSecrets(renamed.data)));
        return { error, errorWritten: true };
      }
      const usageOnly = events.length > 0 && events.every((e) => e.type === 'usage') && frameMayCarryUsage(frame);
      if (usageOnly && !request.includeUsage) return undefined;
      if (frame.data.trim() === '[DONE]') {
        done = frame;
        return undefined;
      }
      if (!costed && frameMayCarryUsage(frame) && !events.some((e) => e.type === 'start')) {
        // The opening frame (message_start, response.created) carries only initial usage: it
        // goes out at once so the first event is never delayed; a later usage frame waits for
        // the final usage so it can carry the cost.
        release(out);
        held = renameModel(frame);
        return undefined;
      }
      release(out, renameModel(frame));
      return undefined;
    },
    end() {
      const error = observe(decoder.end());
      return error ? { error } : undefined;
    },
    beforeFinish() {
      // Without usage from the upstream, the meter bills the output it saw: each undecoded
      // frame's length minus its envelope (the shortest frame's length less its own output).
      if (costed || skippedFrames === 0) return;
      const envelope = shortest - outputCharsOf(shortestData);
      meter.addOutputChars(Math.max(0, skippedChars - skippedFrames * envelope));
    },
    close(cost, failed) {
      const upstreamUsage = costed;
      costed = true;
      const out = held ? [injectCostIntoFrame(held, cost)] : [];
      held = undefined;
      if (!failed && !upstreamUsage && request.includeUsage) {
        // The upstream never reported usage: the client that asked for it gets what the meter billed, marked estimated.
        const frame = buildEstimatedUsageFrame(dialect.name, request.model, opening ?? { id: generateId('chatcmpl-'), created: Math.floor(Date.now() / 1000) }, meter.usage(), cost);
        if (frame) out.push(frame);
      }
      if (!failed && done) out.push(done);
      return out;
    },
    fail: (error) => {
      const encoder = surface.createStreamEncoder(request);
      for (const start of starts) encoder.encode(start);
      return encoder.fail(error);
    },
  };
}

