import type { ParameterizedContext } from 'koa';
import { errors } from '../../errors/gateway-error.js';
import type { OperationResult } from '../../providers/types.js';
import { buildCall, dropUnsupported, resolveModel } from '../resolve-model.js';
import type { AppState } from '../state.js';
import { runTextCall } from '../text-call.js';

/**
 * The one handler of every model POST route: resolve the model, drop parameters it does not
 * accept (named in `x-gateway-dropped-params`), then run the text pipeline (routes with a
 * surface) or the provider's operation.
 */
export async function modelCall(ctx: ParameterizedContext<AppState>): Promise<void> {
  const gw = ctx.state.gw;
  const entry = resolveModel(gw);
  const { body, dropped } = dropUnsupported(gw.body, entry, gw.route);
  const headers: Record<string, string> = { 'x-gateway-model': entry.spec.id, 'x-gateway-provider': entry.provider.name };
  if (dropped.length > 0) headers['x-gateway-dropped-params'] = dropped.join(',');
  const call = buildCall(gw, entry, body);
  if (gw.route.surface) return runTextCall(ctx, gw.route.surface, entry, call, headers);
  const operation = entry.provider.impl.operations?.[gw.route.spec.operation];
  if (!operation) throw errors.unsupportedOperation(entry.spec.id, gw.route.spec.path);
  sendResult(ctx, await operation(call), headers);
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
