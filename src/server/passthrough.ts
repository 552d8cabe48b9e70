import type { ParameterizedContext } from 'koa';
import type { DialectCodec, SurfaceCodec } from '../codecs/codec.js';
import type { Conversation } from '../codecs/internal.js';
import { errors, isGatewayError } from '../errors/gateway-error.js';
import type { OperationCall } from '../providers/types.js';
import { targetOf, sendDialectRequest } from '../upstream/dialect-backend.js';
import { mapTransportError } from '../upstream/http-client.js';
import { readSse } from '../upstream/sse.js';
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
  const encoded = dialect.encodeRequest(request, target);
  const body: Record<string, unknown> = { ...stripGatewayFields(call.body), model: target.upstreamModel };
  if (encoded.body.stream_options !== undefined) body.stream_options = encoded.body.stream_options;
  return { ...encoded, body };
}

/** Same-format, non-streamed: the upstream JSON comes back as it is. */
export async function passthroughJson(ctx: ParameterizedContext<AppState>, dialect: DialectCodec, request: Conversation, call: OperationCall, headers: Record<string, string>): Promise<void> {
  const res = await sendDialectRequest(dialect, passthroughRequest(dialect, request, call), call);
  let body: unknown;
  try {
    body = await res.body.json();
  } catch (e) {
    throw mapTransportError(e, { provider: call.providerName, timeoutMs: call.timeoutMs, signal: call.signal });
  }
  ctx.set(headers);
  ctx.body = body;
}

/**
 * Same-format stream: each upstream event is forwarded as it arrives. The dialect's decoder
 * reads along (for usage); a usage-only frame the client did not ask for is held back.
 */
export async function passthroughStream(
  ctx: ParameterizedContext<AppState>,
  surface: SurfaceCodec,
  dialect: DialectCodec,
  request: Conversation,
  call: OperationCall,
  headers: Record<string, string>,
): Promise<void> {
  const upstream = await sendDialectRequest(dialect, passthroughRequest(dialect, request, call), call);
  const decoder = dialect.createStreamDecoder(request);
  const res = ctx.res;
  ctx.respond = false;
  openSse(res, { ...headers, 'x-request-id': ctx.state.gw.requestId });
  try {
    for await (const frame of readSse(upstream.body)) {
      if (res.destroyed) break;
      const events = decoder.decode(frame);
      const usageOnly = events.length > 0 && events.every((e) => e.type === 'usage');
      if (usageOnly && !request.includeUsage) continue;
      await writeFrames(res, [frame]);
    }
  } catch (e) {
    if (!call.signal.aborted) {
      const err = mapTransportError(e, { provider: call.providerName, timeoutMs: call.timeoutMs, signal: call.signal });
      const ge = isGatewayError(err) ? err : errors.upstreamUnreachable(call.providerName);
      await writeFrames(res, surface.createStreamEncoder(request).fail({ status: ge.status, type: ge.type, code: ge.code, message: ge.message }));
    }
  } finally {
    if (!upstream.body.destroyed) upstream.body.destroy();
    res.end();
  }
}
