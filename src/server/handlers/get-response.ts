import type { ParameterizedContext } from 'koa';
import { errors } from '../../errors/gateway-error.js';
import type { SharedServices } from '../services.js';
import type { AppState } from '../../calls/state.js';

/**
 * GET /v1/responses/{id}: the stored response object, as POST /v1/responses answered it. Only the
 * key that created it can read it; another key's id is a 404 like an unknown one.
 */
export async function getResponse(ctx: ParameterizedContext<AppState>, shared: SharedServices): Promise<void> {
  const gw = ctx.state.gw;
  const id = String(ctx.params.id ?? '');
  const stored = await shared.responses.load(gw.owner, id);
  if (!stored) throw errors.notFound(`No stored response '${id}' for this key (unknown, expired, or created with store: false).`, 'response_not_found');
  ctx.set('Cache-Control', 'no-store');
  ctx.body = stored.response;
}
