import type { ParameterizedContext } from 'koa';
import type { CallMeter } from '../billing/call-meter.js';
import { COST_HEADER, frameMayCarryUsage, injectCostIntoBody, injectCostIntoFrame, writeCostTrailer } from '../billing/frame-cost.js';
import { formatUsd } from '../billing/usd.js';
import type { DialectCodec, SseFrame, SurfaceCodec } from '../codecs/codec.js';
import type { Conversation, StreamEvent } from '../codecs/internal.js';
import { errors, isGatewayError } from '../errors/gateway-error.js';
import { classifyStreamContentType, mapBodyReadError } from '../errors/stream-response.js';
import { redactSecrets } from '../errors/redact.js';
import { errorFromStreamEvent } from '../errors/upstream-failure.js';
import type { OperationCall } from '../providers/types.js';
import { targetOf, sendDialectRequest } from '../upstream/dialect-backend.js';
import { readSseBatches } from '../upstream/sse.js';
import { stripGatewayFields } from './resolve-model.js';
import { openSse, writeFrames } from './sse-response.js';
import type { AppState } from './state.js';

/**
 * The request to send for a same-format call: the client's own body (unknown fields kept)
 * with the upstream model name, minus gateway-only fields. Path, headers and stream options
 * come from the dialect's own encoding of the same request, so the upstream is always asked
 * for usage in streams exactly as a translated call would ask.
 */
function passthroughRequest(dialect: DialectCodec, request: Conversation, call: OperationCall) {
  const target = targetOf(call);
  // Only the envelope of the encoding is used (path, headers, stream options), so the dialect
  // encodes an empty conversation of the same shape rather than the whole request.
  const encoded = dialect.encodeRequest({ ...request, system: [], messages: [], tools: undefined }, target);
  const body: Record<string, unknown> = { ...stripGatewayFields(call.body), model: target.upstreamModel };
  if (encoded.body.stream_options !== undefined) body.stream_options = encoded.body.stream_options;
  return { ...encoded, body };
}

/**
 * Same-format, non-streamed: the upstream JSON comes back as it is, with `usage.cost` added
 * (priced from the dialect's reading of the upstream usage).
 */
export async function passthroughJson(ctx: ParameterizedContext<AppState>, dialect: DialectCodec, request: Conversation, call: OperationCall, headers: Record<string, string>, meter?: CallMeter): Promise<void> {
  const res = await sendDialectRequest(dialect, passthroughRequest(dialect, request, call), call);
  let body: unknown;
  try {
    body = await res.body.json();
  } catch (e) {
    throw mapBodyReadError(e, { provider: call.providerName, timeoutMs: call.timeoutMs, signal: call.signal });
  }
  ctx.set(headers);
  if (meter) {
    try {
      meter.record(dialect.decodeResponse(body, request).usage);
    } catch {
      // An answer the dialect cannot read is billed from the prompt estimate (CallMeter).
    }
    const cost = await meter.finish();
    injectCostIntoBody(body, cost);
    ctx.set(COST_HEADER, formatUsd(cost));
  }
  ctx.body = body;
}

/**
 * Same-format stream: each upstream event is forwarded as it arrives. The dialect's decoder
 * reads along (for usage); a usage-only frame the client did not ask for is held back. With a
 * meter, the cost goes into the frame that carries the final usage: a frame with a usage
 * object is held until the decoder has seen the stream's usage (the next frame at most, e.g.
 * Anthropic's message_delta before message_stop), then sent with `usage.cost`; the stream
 * closes with the cost as an SSE comment (before a `[DONE]`) and as the HTTP trailer.
 */
export async function passthroughStream(
  ctx: ParameterizedContext<AppState>,
  surface: SurfaceCodec,
  dialect: DialectCodec,
  request: Conversation,
  call: OperationCall,
  headers: Record<string, string>,
  meter?: CallMeter,
): Promise<void> {
  const upstream = await sendDialectRequest(dialect, passthroughRequest(dialect, request, call), call);
  const notSse = classifyStreamContentType(call.providerName, upstream.headers);
  if (notSse) {
    upstream.body.on('error', () => undefined).destroy(); // nobody reads it: a late error must not go uncaught
    throw notSse;
  }
  const decoder = dialect.createStreamDecoder(request);
  // Writes a failure in the client's format; it sees the stream's start (only) so it never
  // re-opens a stream the upstream already opened (Responses: no second response.created).
  const failEncoder = surface.createStreamEncoder(request);
  const res = ctx.res;
  ctx.respond = false;
  openSse(res, { ...headers, 'x-request-id': ctx.state.gw.requestId, ...(meter ? { trailer: COST_HEADER } : {}) });
  let held: SseFrame | undefined;
  let costed = false;
  let closed = false;
  // Frames decided during one network read go out in one write.
  const outgoing: SseFrame[] = [];
  const flush = () => writeFrames(res, outgoing.splice(0));
  const release = (frames: SseFrame[]) => {
    const out = held ? [held, ...frames] : frames;
    held = undefined;
    outgoing.push(...(costed && meter ? out.map((f) => injectCostIntoFrame(f, meter.cost())) : out));
  };
  const close = async () => {
    if (closed || !meter) return;
    closed = true;
    release([]);
    await flush();
    const cost = await meter.finish();
    writeCostTrailer(res, cost);
  };
  try {
    for await (const batch of readSseBatches(upstream.body)) {
      if (res.destroyed) break;
      for (const frame of batch) {
        const events = decoder.decode(frame);
        // A frame the gateway found malformed is not forwarded: the client gets its own error event.
        const detected = events.find((e) => e.type === 'error' && e.detected);
        if (detected) throw errorFromStreamEvent(detected as Extract<StreamEvent, { type: 'error' }>);
        const start = events.find((e) => e.type === 'start');
        if (start) failEncoder.encode(start);
        // The provider's own in-band error goes out as it came, minus any credential it quotes.
        if (events.some((e) => e.type === 'error')) frame.data = redactSecrets(frame.data);
        if (meter) for (const e of events) { meter.observe(e); if (e.type === 'usage') costed = true; }
        // The usage chunk the gateway asked for on the client's behalf (chat include_usage) is held
        // back; a usage-only frame without a usage object (Anthropic message_stop) is not.
        const usageOnly = events.length > 0 && events.every((e) => e.type === 'usage') && frameMayCarryUsage(frame);
        if (usageOnly && !request.includeUsage) continue;
        if (!meter) {
          outgoing.push(frame);
        } else if (frame.data.trim() === '[DONE]') {
          await close();
          outgoing.push(frame);
        } else if (!costed && frameMayCarryUsage(frame) && !events.some((e) => e.type === 'start')) {
          // The opening frame (message_start, response.created) carries only initial usage: it
          // goes out at once so the first event is never delayed; a later usage frame waits for
          // the final usage so it can carry the cost.
          release([]);
          held = frame;
        } else {
          release([frame]);
        }
      }
      await flush();
    }
    const ended = res.destroyed ? [] : decoder.end();
    if (meter) for (const e of ended) { meter.observe(e); if (e.type === 'usage') costed = true; }
    // The stream-end rule: a stream cut before its terminal event ends in the client's error event.
    const cut = ended.find((e) => e.type === 'error');
    if (cut) throw errorFromStreamEvent(cut as Extract<StreamEvent, { type: 'error' }>);
    await close();
  } catch (e) {
    if (!call.signal.aborted) {
      const err = mapBodyReadError(e, { provider: call.providerName, timeoutMs: call.timeoutMs, signal: call.signal });
      const ge = isGatewayError(err) ? err : errors.upstreamUnreachable(call.providerName);
      release([]);
      outgoing.push(...failEncoder.fail({ status: ge.status, type: ge.type, code: ge.code, message: ge.message }));
      await flush();
    }
    await close();
  } finally {
    if (!upstream.body.destroyed) upstream.body.destroy();
    res.end();
  }
}
