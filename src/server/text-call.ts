import type { ParameterizedContext } from 'koa';
import { createCallMeter, type CallMeter } from '../billing/call-meter.js';
import { planTextCall } from '../billing/call-plan.js';
import { COST_HEADER, injectCostIntoBody, injectCostIntoFrame, writeCostTrailer } from '../billing/frame-cost.js';
import { noSpendHold, type SpendHold } from '../billing/spend-hold.js';
import { limitStreamSpend } from '../billing/stream-spend-limiter.js';
import { formatUsd } from '../billing/usd.js';
import type { SurfaceCodec } from '../codecs/codec.js';
import type { Conversation, StreamEvent } from '../codecs/internal.js';
import type { ModelEntry } from '../compile/runtime.js';
import { dialects } from '../compile/registry.js';
import { errors, isGatewayError, type GatewayError } from '../errors/gateway-error.js';
import { errorFromStreamEvent } from '../errors/upstream-failure.js';
import type { OperationCall } from '../providers/types.js';
import { passthroughJson, passthroughStream } from './passthrough.js';
import { openSse, writeFrames } from './sse-response.js';
import type { AppState } from './state.js';

/** The budgets a text call runs under. */
export interface TextBilling {
  /** The request's `max_budget_usd`. */
  budgetUsd?: number;
  /** The calling key's token limit and budget. */
  hold: SpendHold;
}

/**
 * Serves a text route: the client's surface decodes the body into the internal form, the
 * provider's backend answers, the surface encodes the answer. Same-format calls skip
 * translation and pass the client's body through (unknown fields kept) unless a budget caps
 * the call: then it is translated, so its output limit is applied and its stream metered.
 * Every answer carries its cost (`x-gateway-cost`, `usage.cost`).
 */
export async function runTextCall(
  ctx: ParameterizedContext<AppState>,
  surface: SurfaceCodec,
  entry: ModelEntry,
  call: OperationCall,
  headers: Record<string, string>,
  billing: TextBilling = { hold: noSpendHold },
): Promise<void> {
  const request = surface.decodeRequest(call.body);
  const backend = entry.provider.impl.text;
  if (!backend) throw errors.unsupportedOperation(entry.spec.id, ctx.state.gw.route.spec.path);
  const plan = await planTextCall(request, entry.spec, entry.pricing, billing.budgetUsd, billing.hold);
  const record = ctx.state.gw.record;
  record.streamed = request.stream === true;
  const meter = createCallMeter(request, entry.pricing, billing.hold, plan.estimate?.inputTokens, (usage, cost, estimated) => {
    record.usage = { input: usage.inputTokens, output: usage.outputTokens, cachedInput: usage.cachedInputTokens ?? 0, reasoning: usage.reasoningTokens ?? 0, estimated };
    record.costUsd = cost;
  });
  try {
    const sameFormat = dialects.get(entry.provider.spec.type);
    if (sameFormat && sameFormat.name === surface.name && !plan.translate) {
      if (request.stream) return await passthroughStream(ctx, surface, sameFormat, request, call, headers, meter);
      return await passthroughJson(ctx, sameFormat, request, call, headers, meter);
    }
    if (!request.stream) {
      const answer = await backend.complete(request, call);
      meter.record(answer.usage);
      const cost = await meter.finish();
      const body = surface.encodeResponse(answer, request);
      injectCostIntoBody(body, cost);
      ctx.set(headers);
      ctx.set(COST_HEADER, formatUsd(cost));
      ctx.body = body;
      return;
    }
    const events = backend.stream(request, call);
    await streamTranslated(ctx, surface, request, plan.limit ? limitStreamSpend(events, plan.limit) : events, headers, meter);
  } finally {
    await meter.abandon();
  }
}

/**
 * Streams internal events to the client in its surface's grammar, event by event. The first
 * event is awaited before headers go out, so a failure before the stream starts is a normal
 * HTTP error; a failure after becomes the surface's own error event. With a meter, the cost
 * is written into the frames that carry usage, as a closing SSE comment and as the
 * `x-gateway-cost` HTTP trailer, and settled on the key.
 */
export async function streamTranslated(
  ctx: ParameterizedContext<AppState>,
  surface: SurfaceCodec,
  request: Conversation,
  events: AsyncIterable<StreamEvent>,
  headers: Record<string, string>,
  meter?: CallMeter,
): Promise<void> {
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (!first.done && first.value.type === 'error') throw fromEvent(first.value);
  const encoder = surface.createStreamEncoder(request);
  const res = ctx.res;
  ctx.respond = false;
  openSse(res, { ...headers, 'x-request-id': ctx.state.gw.requestId, ...(meter ? { trailer: COST_HEADER } : {}) });
  try {
    let step = first;
    while (!step.done) {
      if (res.destroyed) break;
      const event = step.value;
      meter?.observe(event);
      let frames = encoder.encode(event);
      if (meter && event.type === 'usage') frames = frames.map((f) => injectCostIntoFrame(f, meter.cost()));
      await writeFrames(res, frames);
      step = await iterator.next();
    }
    const end = encoder.end();
    if (meter) {
      const cost = await meter.finish();
      writeCostTrailer(res, cost);
      await writeFrames(res, end.map((f) => injectCostIntoFrame(f, cost)));
    } else {
      await writeFrames(res, end);
    }
  } catch (e) {
    if (!ctx.state.gw.abort.signal.aborted) {
      const err = isGatewayError(e) ? e : errors.internal();
      await writeFrames(res, encoder.fail({ status: err.status, type: err.type, code: err.code, message: err.message }));
    }
    await iterator.return?.();
    if (meter) writeCostTrailer(res, await meter.finish());
  } finally {
    res.end();
  }
}

function fromEvent(ev: Extract<StreamEvent, { type: 'error' }>): GatewayError {
  return errorFromStreamEvent(ev);
}
