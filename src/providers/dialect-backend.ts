import type { DialectCodec, DialectRequest, DialectTarget } from '../codecs/codec.js';
import type { Conversation, InternalResponse, StreamEvent } from '../codecs/internal.js';
import { upstreamNameOf } from '../config/model-name.js';
import { errors } from '../errors/gateway-error.js';
import type { OperationCall, TextBackend } from './types.js';
import type { ModelSpec, ProviderSpec } from '../config/types.js';
import { classifyStreamContentType } from '../errors/stream-response.js';
import { mapCallError } from './map-call-error.js';
import { readBody, sendUpstream, upstreamFailure, type UpstreamResponse } from '../upstream/http-client.js';
import { joinUrl } from '../upstream/join-url.js';
import { readSseBlocks } from '../upstream/sse-readers.js';

/** Targets already built, per compiled model spec (and the provider spec they were built for). */
const targets = new WeakMap<ModelSpec, { provider: ProviderSpec; target: DialectTarget }>();

/**
 * What a dialect is told about the model it encodes for. Model and provider specs are compiled
 * once per config, so the target (its parameter Set included) is built once per model rather
 * than once per request.
 */
export function targetOf(call: OperationCall): DialectTarget {
  const known = targets.get(call.model);
  if (known && known.provider === call.provider) return known.target;
  const target: DialectTarget = {
    upstreamModel: upstreamNameOf(call.model),
    supportedParameters: new Set(call.model.parameters ?? []),
    options: call.provider.options ?? {},
  };
  targets.set(call.model, { provider: call.provider, target });
  return target;
}

/**
 * Sends a dialect request with the provider's key and headers; non-2xx becomes a GatewayError.
 * A cloud deployment (`call.access`) reshapes the request for its platform first and puts its
 * credentials on the finished request (a cached token is added synchronously).
 */
export async function sendDialectRequest(dialect: DialectCodec, req: DialectRequest, call: OperationCall): Promise<UpstreamResponse> {
  if (!call.baseUrl) throw errors.providerNotConfigured(call.providerName, `${call.providerName.toUpperCase()}_BASE_URL`);
  const access = call.access;
  const shaped = access?.shape ? access.shape(req, call) : req;
  const url = joinUrl(call.baseUrl, shaped.path);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(call.provider.headers ?? {}),
    ...dialect.authHeaders(call.apiKey ?? '', call.provider.options ?? {}),
    ...(shaped.headers ?? {}),
    ...(call.requestId ? { 'x-request-id': call.requestId } : {}),
  };
  const body = JSON.stringify(shaped.body);
  if (access?.authorizer) {
    const pending = access.authorizer.authorize({ method: 'POST', url, headers, body }, call.trace);
    if (pending) await pending;
  }
  const res = await sendUpstream({
    provider: call.providerName,
    url,
    headers,
    body,
    signal: call.signal,
    timeoutMs: call.timeoutMs,
    timeouts: call.timeouts,
    trace: call.trace,
  });
  if (res.status >= 400) {
    const body = await readBody(res);
    // A platform may read its errors its own way (Bedrock names them in x-amzn-ErrorType).
    const platform = access?.failure?.(res.status, res.headers, body);
    if (platform) throw upstreamFailure(call.providerName, platform.status, res.headers, platform.info);
    throw upstreamFailure(call.providerName, res.status, res.headers, dialect.decodeError(res.status, body));
  }
  // A platform's own stream framing (Bedrock's event stream) is read as the dialect's SSE.
  return access?.answer ? access.answer(res, call) : res;
}

/** A TextBackend that speaks one upstream wire format over HTTP. */
export function createDialectBackend(dialect: DialectCodec): TextBackend {
  return {
    async complete(request: Conversation, call: OperationCall): Promise<InternalResponse> {
      const req = dialect.encodeRequest({ ...request, stream: false }, targetOf(call));
      const res = await sendDialectRequest(dialect, req, call);
      let body: unknown;
      try {
        body = await res.body.json();
      } catch (e) {
        throw mapCallError(e, call);
      }
      return dialect.decodeResponse(body, request);
    },
    async *stream(request: Conversation, call: OperationCall): AsyncIterable<StreamEvent> {
      const req = dialect.encodeRequest({ ...request, stream: true }, targetOf(call));
      const res = await sendDialectRequest(dialect, req, call);
      // A 200 that is not an event stream fails the attempt before anything was read.
      const notSse = classifyStreamContentType(call.providerName, res.header('content-type'));
      if (notSse) {
        res.body.destroy();
        if (call.trace) call.trace.failure = { kind: 'status', status: 502, headers: {} };
        throw notSse;
      }
      const decoder = dialect.createStreamDecoder(request);
      try {
        for await (const batch of readSseBlocks(res.body)) {
          for (const frame of batch) for (const ev of decoder.decode(frame)) yield ev;
        }
      } catch (e) {
        throw mapCallError(e, call);
      } finally {
        res.body.destroy();
      }
      for (const ev of decoder.end()) yield ev;
    },
  };
}
