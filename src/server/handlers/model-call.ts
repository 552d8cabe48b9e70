import type { ParameterizedContext } from 'koa';
import { runModelCall } from '../../calls/model-call.js';
import { elapsedMs } from '../../calls/request-record.js';
import type { AppState } from '../../calls/state.js';
import type { OperationResult } from '../../providers/types.js';
import type { SharedServices } from '../services.js';

/**
 * The one handler of every model POST route: the call pipeline (src/calls/model-call.ts) runs
 * the call; a text answer it has written already, an operation's result is written here.
 */
export async function modelCall(ctx: ParameterizedContext<AppState>, shared: SharedServices): Promise<void> {
  const answer = await runModelCall(ctx, shared);
  if (!answer) return;
  sendResult(ctx, answer.result, answer.headers);
  const record = ctx.state.gw.record;
  record.ttfbMs = elapsedMs(record);
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
