import { planOperationCall, readMaxBudget } from '../billing/call-plan.js';
import { COST_HEADER, injectCostIntoBody } from '../billing/frame-cost.js';
import { measureOperationCost, type OperationEstimate } from '../billing/operation-cost.js';
import type { UnitRequest } from '../billing/operation-units.js';
import { UploadedMedia } from '../mapping/media.js';
import type { SpendHold } from '../billing/spend-hold.js';
import { formatUsd } from '../billing/usd.js';
import type { ModelEntry } from '../compile/runtime.js';
import { errors } from '../errors/gateway-error.js';
import type { OperationCall, OperationResult } from '../providers/types.js';
import { TOTAL_DEADLINE } from '../upstream/call-upstream.js';
import { buildCall, callFor, dropUnsupported } from './resolve-model.js';
import { resolveTargets } from './route-targets.js';
import { routingHeaders, runRoutingLoop } from './routing-call.js';
import type { CallExchange } from './exchange.js';
import type { GatewayState } from './state.js';
import type { KeyPolicyServices } from './key-spend.js';
import type { RoutingServices } from './routing-call.js';
import type { ResponseStore } from '../store/response-store.js';
import type { LatencyTracker } from '../routing/latency.js';
import { openStoredResponses } from './stored-responses.js';
import { deferredRpmOf, openKeySpend } from './key-spend.js';
import { runTextCall } from './text-call.js';
import { answerFromCache, type CacheStepServices } from './response-cache-step.js';
import { cacheSaverOf } from './cache/response-cache.js';

/** The process-wide services a model call uses (the server's SharedServices provide them). */
export interface CallServices extends RoutingServices, KeyPolicyServices, CacheStepServices {
  readonly latency: LatencyTracker;
  readonly responses: ResponseStore;
}

/** An operation's answer for the server to write: its result and the gateway's headers. */
export interface OperationAnswer {
  readonly result: OperationResult;
  readonly headers: Record<string, string>;
}

/** A target of a non-text operation made ready: its call, estimate and hold. */
interface OperationPrepared {
  readonly entry: ModelEntry;
  /** The provider's operation of the route (looked up once per target). */
  readonly operation: (call: OperationCall) => Promise<OperationResult>;
  readonly call: OperationCall;
  readonly dropped: readonly string[];
  readonly unitRequest: UnitRequest;
  readonly estimate: OperationEstimate;
  readonly hold: SpendHold;
}

/**
 * The call behind every model POST route: resolve the models that may answer (the key may
 * call them; the request's `models` list or the YAML fallbacks), then run the text pipeline
 * (routes with a surface) or the provider's operation through the routing loop (retries,
 * fallbacks, breakers, the total deadline). Both are billed the same way: budgets checked and
 * the worst case reserved per target at its own price, the real cost reported (`x-gateway-cost`,
 * `usage.cost`) and settled after it. A text call writes its answer itself (the stream writer
 * of the pipeline); an operation's answer is returned for the server to write.
 */
export async function runModelCall(ctx: CallExchange, shared: CallServices): Promise<OperationAnswer | undefined> {
  const gw = ctx.state.gw;
  const targets = resolveTargets(gw, shared.latency);
  const primary = targets[0]!.entry;
  gw.record.model = primary.spec.id;
  gw.record.provider = primary.provider.name;
  // A response cache hit is answered here, before any routing (undefined: the cache is off).
  const cached = answerFromCache(ctx, shared, runOwnOperation);
  if (cached && await cached) return undefined;
  // Stored Responses references (previous_response_id, item_reference) are resolved once, for
  // every target: each sees the whole conversation.
  const opening = openStoredResponses(gw, primary, shared.responses);
  const stored = opening ? await opening : undefined;
  if (stored) gw.body = stored.body;
  const budgetUsd = readMaxBudget(gw.body);
  // One key hold per target tried. A deferred rpm check (keys with a budget) is decided by the
  // first reservation and counted with it. Settlement failures are logged by the store guard;
  // they never fail a delivered answer.
  const rpm = deferredRpmOf(gw) ?? true;
  const openHold = () => openKeySpend(gw.key, gw.owner, shared, undefined, rpm);
  // The total deadline (retries, fallbacks and the whole answer): it aborts the request's own
  // signal with a reason the upstream layer reads as a timeout, not as the client leaving.
  const deadline = setTimeout(() => gw.abort.abort(TOTAL_DEADLINE), primary.policy.timeouts.totalMs);
  // `hedge_after_ms` of the model asked for (a router model's `route.hedge_after_ms`).
  const hedgeAfterMs = gw.runtime.models.get(String(gw.body.model))?.hedgeAfterMs;
  try {
    if (gw.route.surface) {
      await runTextCall(ctx, stored?.wrap(gw.route.surface) ?? gw.route.surface, targets, shared, { budgetUsd, openHold }, hedgeAfterMs, stored?.finishAnswer);
      return undefined;
    }
    return await runOperation(gw, targets, shared, budgetUsd, openHold, hedgeAfterMs);
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * An operation the gateway makes on its own behalf for a request (the semantic cache's
 * embedding of a prompt), on a state of its own: the same targets (the key's allowlists
 * apply), routing loop, deadline, pricing and key spend as a client's call, without the
 * response cache or stored responses, and counting no rpm (the request it serves counts).
 */
export async function runOwnOperation(gw: GatewayState, shared: CallServices): Promise<OperationAnswer> {
  const targets = resolveTargets(gw, shared.latency);
  const primary = targets[0]!.entry;
  gw.record.model = primary.spec.id;
  gw.record.provider = primary.provider.name;
  const deadline = setTimeout(() => gw.abort.abort(TOTAL_DEADLINE), primary.policy.timeouts.totalMs);
  try {
    return await runOperation(gw, targets, shared, undefined, () => openKeySpend(gw.key, gw.owner, shared, undefined, false));
  } finally {
    clearTimeout(deadline);
  }
}

async function runOperation(gw: GatewayState, targets: ReturnType<typeof resolveTargets>, shared: CallServices, budgetUsd: number | undefined, openHold: () => SpendHold, hedgeAfterMs?: number): Promise<OperationAnswer> {
  const routed = await runRoutingLoop<OperationPrepared, OperationResult>(gw, shared, targets, {
    prepare: async (target) => {
      const entry = target.entry;
      const operation = entry.provider.impl.operations?.[gw.route.spec.operation];
      if (!operation) throw errors.unsupportedOperation(entry.spec.id, gw.route.spec.path);
      const { body, dropped } = dropUnsupported(gw.body, entry, gw.route);
      const call = buildCall(gw, entry, body);
      const unitRequest: UnitRequest = { body, readFile: (id) => gw.services.files.read(id, gw.owner), readUpload: readUploadedBytes };
      const hold = openHold();
      const estimate = await planOperationCall(entry.pricing, unitRequest, budgetUsd, hold);
      return { entry, operation, call, dropped, unitRequest, estimate, hold };
    },
    attempt: (target, p, upstream, trace, signal) => p.operation(callFor(p.call, upstream, trace, signal)),
    discard: discardResult,
  }, hedgeAfterMs);
  const p = routed.prepared;
  const result = routed.value;
  const record = gw.record;
  const cost = measureOperationCost(p.entry.pricing, p.estimate, {
    body: result.kind === 'json' ? result.body : undefined,
    bytes: result.kind === 'bytes' && result.body instanceof Uint8Array ? result.body : undefined,
    headers: result.headers,
  }, p.unitRequest);
  await p.hold.settle(cost, 0);
  record.costUsd = cost;
  // Stored before its cost goes in: a hit writes its own (0).
  if (result.kind === 'json' && (result.status ?? 200) < 300) cacheSaverOf(gw)?.saveJson(result.body, { model: p.entry.spec.id, provider: p.entry.provider.name, costUsd: cost });
  if (result.kind === 'json') injectCostIntoBody(result.body, cost);
  return { result, headers: { ...routingHeaders(routed, p.dropped), [COST_HEADER]: formatUsd(cost) } };
}

/** The bytes of a multipart file part (parse-multipart makes it an UploadedMedia), for the cost estimate. */
function readUploadedBytes(value: unknown): Promise<Uint8Array> | undefined {
  return value instanceof UploadedMedia ? value.read().then((media) => media.bytes) : undefined;
}

/** Lets go of a result that lost a hedging race: its byte stream and its hold. */
async function discardResult(result: OperationResult, p: OperationPrepared): Promise<void> {
  if (result.kind === 'bytes' && !(result.body instanceof Uint8Array)) result.body.destroy();
  await p.hold.settle(0, 0);
}
