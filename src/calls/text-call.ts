import type { CallExchange } from './exchange.js';
import { elapsedMs } from './request-record.js';
import { errorFromStreamEvent } from '../errors/upstream-failure.js';
import { createCallMeter, type CallMeter } from '../billing/call-meter.js';
import { planTextCall, type TextPlan } from '../billing/call-plan.js';
import { COST_HEADER, injectCostIntoBody } from '../billing/frame-cost.js';
import type { SpendHold } from '../billing/spend-hold.js';
import { limitStreamSpend } from '../billing/stream-spend-limiter.js';
import { formatUsd } from '../billing/usd.js';
import type { DialectCodec, SurfaceCodec } from '../codecs/codec.js';
import type { Conversation, InternalResponse, StreamEvent } from '../codecs/internal.js';
import type { ModelEntry } from '../compile/runtime.js';
import { dialects } from '../compile/registry.js';
import { errors } from '../errors/gateway-error.js';
import type { OperationCall } from '../providers/types.js';
import { portableConversation } from '../routing/portable-conversation.js';
import type { Routed } from '../routing/run-routed.js';
import type { RoutingTarget } from '../routing/targets.js';
import type { AttemptTrace } from '../upstream/call-upstream.js';
import { openPassthrough, passthroughJson, writePassthroughStream, type PassthroughStream } from './passthrough.js';
import { buildCall, callFor, dropUnsupported } from './resolve-model.js';
import { routingHeaders, runRoutingLoop, type RoutingServices } from './routing-call.js';
import { streamTranslated } from './translate-stage.js';

/** The budgets a text call runs under. */
export interface TextBilling {
  /** The request's `max_budget_usd`. */
  budgetUsd?: number;
  /** Opens the calling key's token limit and budget for one target (a fresh hold per target). */
  openHold: () => SpendHold;
}

/** One target made ready: its body, conversation, budget plan and hold. */
interface TextPrepared {
  readonly entry: ModelEntry;
  readonly call: OperationCall;
  readonly request: Conversation;
  readonly plan: TextPlan;
  readonly hold: SpendHold;
  readonly dropped: readonly string[];
  /** Set when the client's body goes upstream as it is (same format, no budget cap). */
  readonly dialect?: DialectCodec;
}

/** What one successful attempt hands the writer: nothing has reached the client yet. */
type TextAnswer =
  | { readonly kind: 'answer'; readonly answer: InternalResponse }
  | { readonly kind: 'json'; readonly body: unknown }
  | { readonly kind: 'events'; readonly iterator: AsyncIterator<StreamEvent>; readonly first: IteratorResult<StreamEvent> }
  | { readonly kind: 'frames'; readonly stream: PassthroughStream };

/**
 * Serves a text route: the routing loop tries the request's targets (retries, fallbacks across
 * formats, budgets at each target's price) until one answers, then the answer is written in
 * the client's surface. Same-format calls pass the client's body through (unknown fields kept)
 * unless a budget caps the call: then it is translated, so its output limit is applied and its
 * stream metered. Every answer carries its cost (`x-gateway-cost`, `usage.cost`) and says who
 * answered (`x-gateway-model`, `x-gateway-attempts`, `x-gateway-fallback-reason`).
 */
export async function runTextCall(
  ctx: CallExchange,
  surface: SurfaceCodec,
  targets: ReadonlyArray<RoutingTarget<ModelEntry>>,
  services: RoutingServices,
  billing: TextBilling,
  hedgeAfterMs?: number,
  beforeJsonAnswer?: (body: unknown) => void,
): Promise<void> {
  const gw = ctx.state.gw;
  const record = gw.record;
  const primaryDialect = dialects.get(targets[0]!.entry.provider.spec.type)?.name;
  const routed = await runRoutingLoop<TextPrepared, TextAnswer>(gw, services, targets, {
    prepare: async (target) => {
      const entry = target.entry;
      if (!entry.provider.impl.text) throw errors.unsupportedOperation(entry.spec.id, gw.route.spec.path);
      const { body, dropped } = dropUnsupported(gw.body, entry, gw.route);
      const call = buildCall(gw, entry, body);
      let request = surface.decodeRequest(body);
      request.model = entry.spec.id;
      const dialect = dialects.get(entry.provider.spec.type);
      // Provider-only state (signatures, encrypted reasoning) only means something to the
      // format that made it: a fallback in another format gets the conversation without it.
      if (target !== targets[0] && dialect?.name !== primaryDialect) request = portableConversation(request);
      const hold = billing.openHold();
      const plan = await planTextCall(request, entry.spec, entry.pricing, billing.budgetUsd, hold);
      const same = dialect && dialect.name === surface.name && !plan.translate && target === targets[0] ? dialect : undefined;
      return { entry, call, request, plan, hold, dropped, dialect: same };
    },
    attempt: (target, p, upstream, trace, signal) => attemptText(p, callFor(p.call, upstream, trace, signal), trace),
    discard: discardAnswer,
  }, hedgeAfterMs);
  const p = routed.prepared;
  record.streamed = p.request.stream === true;
  const meter = createCallMeter(p.request, p.entry.pricing, p.hold, p.plan.estimate?.inputTokens, (usage, cost, estimated) => {
    record.usage = { input: usage.inputTokens, output: usage.outputTokens, cachedInput: usage.cachedInputTokens ?? 0, reasoning: usage.reasoningTokens ?? 0, estimated };
    record.costUsd = cost;
  });
  const headers = routingHeaders(routed, p.dropped);
  try {
    await writeAnswer(ctx, surface, routed, headers, meter, beforeJsonAnswer);
  } finally {
    await meter.abandon();
  }
}

/** Lets go of an answer that lost a hedging race: its upstream and its hold. */
async function discardAnswer(answer: TextAnswer, p: TextPrepared): Promise<void> {
  if (answer.kind === 'frames') answer.stream.upstream.body.destroy();
  else if (answer.kind === 'events') await answer.iterator.return?.();
  await p.hold.settle(0, 0);
}

/**
 * One attempt of a text call. A stream attempt counts as answered only once its first event
 * (or first frames) arrived: a stream that fails or stalls before that is still retryable, and
 * an upstream error as the stream's first event (Anthropic's in-stream `overloaded_error`)
 * fails the attempt like the same status would.
 */
async function attemptText(p: TextPrepared, call: OperationCall, trace: AttemptTrace): Promise<TextAnswer> {
  const { request } = p;
  if (p.dialect) {
    if (!request.stream) return { kind: 'json', body: await passthroughJson(p.dialect, request, call) };
    return { kind: 'frames', stream: await openPassthrough(p.dialect, request, call) };
  }
  const backend = p.entry.provider.impl.text!;
  if (!request.stream) return { kind: 'answer', answer: await backend.complete(request, call) };
  const events = backend.stream(request, call);
  const iterator = (p.plan.limit ? limitStreamSpend(events, p.plan.limit) : events)[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (!first.done && first.value.type === 'error') {
    await iterator.return?.();
    const ev = first.value;
    trace.failure = { kind: 'status', status: ev.status, headers: {} };
    throw errorFromStreamEvent(ev);
  }
  return { kind: 'events', iterator, first };
}

/** Writes the answer of the attempt that won, in the client's surface. */
async function writeAnswer(
  ctx: CallExchange,
  surface: SurfaceCodec,
  routed: Routed<ModelEntry, TextPrepared, TextAnswer>,
  headers: Record<string, string>,
  meter: CallMeter,
  beforeJsonAnswer?: (body: unknown) => void,
): Promise<void> {
  const p = routed.prepared;
  const answer = routed.value;
  switch (answer.kind) {
    case 'json': {
      try {
        meter.record(p.dialect!.decodeResponse(answer.body, p.request).usage);
      } catch {
        // An answer the dialect cannot read is billed from the prompt estimate (CallMeter).
      }
      return sendJsonAnswer(ctx, answer.body, headers, await meter.finish(), beforeJsonAnswer);
    }
    case 'answer': {
      meter.record(answer.answer.usage);
      const cost = await meter.finish();
      return sendJsonAnswer(ctx, surface.encodeResponse(answer.answer, p.request), headers, cost, beforeJsonAnswer);
    }
    case 'frames':
      return writePassthroughStream(ctx, surface, answer.stream, headers, meter);
    case 'events':
      return streamTranslated(ctx, surface, p.request, answer.iterator, answer.first, headers, meter);
  }
}

/**
 * Answers with a whole JSON body carrying its cost (`usage.cost`, `x-gateway-cost`), written
 * here in one `end()` as streams are (Koa's body setter and respond() are skipped: they would
 * only set the same headers one by one through Koa's checks and serialize the same body). The
 * headers are the gateway's own values (no validation needed). `beforeWrite` sees the finished
 * body first (stored Responses stamp and store it).
 */
function sendJsonAnswer(ctx: CallExchange, body: unknown, headers: Record<string, string>, cost: number, beforeWrite?: (body: unknown) => void): void {
  injectCostIntoBody(body, cost);
  beforeWrite?.(body);
  const text = JSON.stringify(body);
  const res = ctx.res;
  ctx.respond = false;
  res.statusCode = 200;
  res.setHeader('content-type', 'application/json; charset=utf-8');
  for (const name in headers) res.setHeader(name, headers[name]!);
  res.setHeader(COST_HEADER, formatUsd(cost));
  res.setHeader('content-length', Buffer.byteLength(text));
  ctx.state.gw.record.ttfbMs = elapsedMs(ctx.state.gw.record);
  res.end(text);
}
