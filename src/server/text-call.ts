import type { ParameterizedContext } from 'koa';
import type { SurfaceCodec } from '../codecs/codec.js';
import type { Conversation, StreamEvent } from '../codecs/internal.js';
import type { ModelEntry } from '../compile/runtime.js';
import { dialects } from '../compile/registry.js';
import { GatewayError, errors, isGatewayError } from '../errors/gateway-error.js';
import type { OperationCall } from '../providers/types.js';
import { passthroughJson, passthroughStream } from './passthrough.js';
import { openSse, writeFrames } from './sse-response.js';
import type { AppState } from './state.js';

/**
 * Serves a text route: the client's surface decodes the body into the internal form, the
 * provider's backend answers, the surface encodes the answer. Same-format calls skip
 * translation and pass the client's body through (unknown fields kept).
 */
export async function runTextCall(ctx: ParameterizedContext<AppState>, surface: SurfaceCodec, entry: ModelEntry, call: OperationCall, headers: Record<string, string>): Promise<void> {
  const request = surface.decodeRequest(call.body);
  const backend = entry.provider.impl.text;
  if (!backend) throw errors.unsupportedOperation(entry.spec.id, ctx.state.gw.route.spec.path);
  const sameFormat = dialects.get(entry.provider.spec.type);
  if (sameFormat && sameFormat.name === surface.name) {
    if (request.stream) return passthroughStream(ctx, surface, sameFormat, request, call, headers);
    return passthroughJson(ctx, sameFormat, request, call, headers);
  }
  if (!request.stream) {
    const answer = await backend.complete(request, call);
    ctx.set(headers);
    ctx.body = surface.encodeResponse(answer, request);
    return;
  }
  await streamTranslated(ctx, surface, request, backend.stream(request, call), headers);
}

/**
 * Streams internal events to the client in its surface's grammar, event by event. The first
 * event is awaited before headers go out, so a failure before the stream starts is a normal
 * HTTP error; a failure after becomes the surface's own error event.
 */
export async function streamTranslated(
  ctx: ParameterizedContext<AppState>,
  surface: SurfaceCodec,
  request: Conversation,
  events: AsyncIterable<StreamEvent>,
  headers: Record<string, string>,
): Promise<void> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (!first.done && first.value.type === 'error') throw fromEvent(first.value);
  const encoder = surface.createStreamEncoder(request);
  const res = ctx.res;
  ctx.respond = false;
  openSse(res, { ...headers, 'x-request-id': ctx.state.gw.requestId });
  try {
    let step = first;
    while (!step.done) {
      if (res.destroyed) break;
      await writeFrames(res, encoder.encode(step.value));
      step = await iterator.next();
    }
    await writeFrames(res, encoder.end());
  } catch (e) {
    if (!ctx.state.gw.abort.signal.aborted) {
      const err = isGatewayError(e) ? e : errors.upstreamUnreachable(ctx.state.gw.route.spec.operation);
      await writeFrames(res, encoder.fail({ status: err.status, type: err.type, code: err.code, message: err.message }));
    }
    await iterator.return?.();
  } finally {
    res.end();
  }
}

function fromEvent(ev: Extract<StreamEvent, { type: 'error' }>): GatewayError {
  return new GatewayError(ev.status, ev.errorType, ev.code ?? null, ev.message);
}
