import type { CallExchange } from './exchange.js';
import type { CallMeter } from '../billing/call-meter.js';
import { estimateConversationTokens } from '../billing/token-counter.js';
import type { DialectCodec, DialectRequest, DialectTarget, SseFrame, StreamDecoder, SurfaceCodec } from '../codecs/codec.js';
import type { Conversation, StreamEvent } from '../codecs/internal.js';
import { isRecord } from '../codecs/shared/json.js';
import { errors, isGatewayError } from '../errors/gateway-error.js';
import { classifyStreamContentType } from '../errors/stream-response.js';
import { errorFromStreamEvent } from '../errors/upstream-failure.js';
import type { OperationCall } from '../providers/types.js';
import type { UpstreamResponse } from '../upstream/http-client.js';
import { targetOf, sendDialectRequest } from '../providers/dialect-backend.js';
import { mapCallError } from '../providers/map-call-error.js';
import { firstSseFrame } from '../upstream/sse-blocks.js';
import { readSseText } from '../upstream/sse-readers.js';
import { IdentityStage } from './identity-stage.js';
import { stripGatewayFields } from './resolve-model.js';
import { streamFailure } from './stream-pipeline.js';
import { writeStream, type StreamInput } from './stream-pipeline.js';

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
 * and stream options from the target and the stream flag only (test/calls/passthrough-envelope
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

/** A same-format stream whose first event has arrived (nothing written to the client yet). */
export interface PassthroughStream {
  readonly dialect: DialectCodec;
  readonly request: Conversation;
  readonly call: OperationCall;
  readonly upstream: UpstreamResponse;
  /** The rest of the upstream's events, as the text of each network read (readSseText). */
  readonly batches: AsyncIterator<readonly [string]>;
  /** The text read so far: its first event carries data (it may follow comments). */
  readonly first: readonly string[];
  /** The dialect's decoder, which has read the first event (its events are `firstEvents`). */
  readonly decoder: StreamDecoder;
  readonly firstEvents: readonly StreamEvent[];
}

/**
 * Opens a same-format stream and waits for its first event, so a failure or stall before the
 * first byte is still the routing loop's to retry. An upstream error as the first event fails
 * the attempt like the same status would.
 */
export async function openPassthrough(dialect: DialectCodec, request: Conversation, call: OperationCall): Promise<PassthroughStream> {
  const upstream = await sendDialectRequest(dialect, passthroughRequest(dialect, request, call), call);
  // A 200 that is not an event stream (a proxy's page, a server that ignored `stream: true`)
  // fails the attempt before anything reached the client.
  const notSse = classifyStreamContentType(call.providerName, upstream.header('content-type'));
  if (notSse) {
    upstream.body.destroy();
    if (call.trace) call.trace.failure = { kind: 'status', status: 502, headers: {} };
    throw notSse;
  }
  const batches = readSseText(upstream.body)[Symbol.asyncIterator]();
  const first: string[] = [];
  let frame: SseFrame | undefined;
  try {
    // Reads on until an event with data arrived (comments and keep-alives alone are not an answer).
    while (frame === undefined) {
      const step = await batches.next();
      if (step.done) break;
      first.push(step.value[0]);
      frame = firstSseFrame(step.value[0]);
    }
  } catch (e) {
    upstream.body.destroy();
    throw mapCallError(e, call);
  }
  // Nothing at all (a 200 with an empty or non-SSE body) or an error as the first event: the
  // attempt failed before anything reached the client, so the loop may still retry it.
  const decoder = dialect.createStreamDecoder(request);
  const opening = frame ? decoder.decode(frame) : decoder.end();
  const error = opening.find((ev) => ev.type === 'error');
  if (error && error.type === 'error') {
    upstream.body.destroy();
    if (call.trace) call.trace.failure = { kind: 'status', status: error.status, headers: {} };
    throw errorFromStreamEvent(error);
  }
  if (!frame) {
    if (call.trace) call.trace.failure = { kind: 'status', status: 502, headers: {} };
    throw errors.invalidUpstreamResponse(call.providerName, 'a stream with no events');
  }
  return { dialect, request, call, upstream, batches, first, decoder, firstEvents: opening };
}

/**
 * Same-format stream: the stream pipeline with the identity stage (identity-stage.ts). Each
 * upstream event is forwarded as it came, under the canonical model id, with the cost put
 * into the usage frame and the closing comment.
 */
export function writePassthroughStream(
  ctx: CallExchange,
  surface: SurfaceCodec,
  stream: PassthroughStream,
  headers: Record<string, string>,
  meter: CallMeter,
): Promise<void> {
  const { call } = stream;
  const input: StreamInput<string> = {
    first: stream.first,
    next: () => stream.batches.next(),
    close: () => { stream.upstream.body.destroy(); },
    failure: (e) => {
      const mapped = mapCallError(e, call);
      return isGatewayError(mapped) ? mapped : streamFailure(call.signal, call.operation);
    },
  };
  return writeStream(ctx, input, new IdentityStage(surface, stream.dialect, stream.request, meter, stream), headers, meter);
}
