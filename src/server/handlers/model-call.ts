import type { ParameterizedContext } from 'koa';
import { planOperationCall, readMaxBudget } from '../../billing/call-plan.js';
import { COST_HEADER, injectCostIntoBody } from '../../billing/frame-cost.js';
import { measureOperationCost } from '../../billing/operation-cost.js';
import type { UnitRequest } from '../../billing/operation-units.js';
import { formatUsd } from '../../billing/usd.js';
import { errors } from '../../errors/gateway-error.js';
import type { OperationResult } from '../../providers/types.js';
import { buildCall, dropUnsupported, resolveModel } from '../resolve-model.js';
import type { SharedServices } from '../services.js';
import { openStoredResponses } from '../stored-responses.js';
import type { AppState } from '../state.js';
import { assertModelAllowed, deferredRpmOf, openKeySpend } from '../steps/key-policy.js';
import { runTextCall } from '../text-call.js';

/**
 * The one handler of every model POST route: check the key may call the model, resolve it,
 * drop parameters it does not accept (named in `x-gateway-dropped-params`), then run the text
 * pipeline (routes with a surface) or the provider's operation. Both are billed the same way:
 * budgets checked and the worst case reserved before the call, the real cost reported
 * (`x-gateway-cost`, `usage.cost`) and settled after it.
 */
export async function modelCall(ctx: ParameterizedContext<AppState>, shared: SharedServices): Promise<void> {
  const gw = ctx.state.gw;
  assertModelAllowed(gw.key, gw.body.model);
  const entry = resolveModel(gw);
  gw.record.model = entry.spec.id;
  gw.record.provider = entry.provider.name;
  const stored = await openStoredResponses(gw, entry, shared.responses);
  const { body, dropped } = dropUnsupported(stored?.body ?? gw.body, entry, gw.route);
  const headers: Record<string, string> = { 'x-gateway-model': entry.spec.id, 'x-gateway-provider': entry.provider.name };
  if (dropped.length > 0) headers['x-gateway-dropped-params'] = dropped.join(',');
  const call = buildCall(gw, entry, body);
  const budgetUsd = readMaxBudget(body);
  // Settlement failures are logged by the store guard; they never fail a delivered answer.
  const hold = openKeySpend(gw.key, gw.owner, shared, undefined, deferredRpmOf(gw) ?? true);
  if (gw.route.surface) {
    await runTextCall(ctx, stored?.wrap(gw.route.surface) ?? gw.route.surface, entry, call, headers, { budgetUsd, hold });
    return stored?.finish(ctx);
  }
  const operation = entry.provider.impl.operations?.[gw.route.spec.operation];
  if (!operation) throw errors.unsupportedOperation(entry.spec.id, gw.route.spec.path);
  const unitRequest: UnitRequest = { body, readFile: (id) => gw.services.files.read(id, gw.owner) };
  const estimate = await planOperationCall(entry.pricing, unitRequest, budgetUsd, hold);
  let result: OperationResult;
  try {
    result = await operation(call);
  } catch (e) {
    await hold.settle(0, 0);
    throw e;
  }
  const cost = measureOperationCost(entry.pricing, estimate, {
    body: result.kind === 'json' ? result.body : undefined,
    bytes: result.kind === 'bytes' && result.body instanceof Uint8Array ? result.body : undefined,
    headers: result.headers,
  }, unitRequest);
  await hold.settle(cost, 0);
  gw.record.costUsd = cost;
  if (result.kind === 'json') injectCostIntoBody(result.body, cost);
  sendResult(ctx, result, { ...headers, [COST_HEADER]: formatUsd(cost) });
}

/** Writes an operation's result: JSON, or raw bytes with their content type. */
export function sendResult(ctx: ParameterizedContext<AppState>, result: OperationResult, headers: Record<string, string>): void {
  ctx.set(headers);
  if (result.headers) ctx.set(result.headers);
  if (result.kind === 'json') {
    ctx.status = result.status ?? 200;
    ctx.body = result.body;
    return;
  }
  ctx.status = 200;
  ctx.type = result.contentType;
  ctx.body = result.body instanceof Uint8Array ? Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength) : result.body;
}
