import type { Middleware } from 'koa';
import { errors } from '../../errors/gateway-error.js';
import type { AppState } from '../state.js';

/**
 * Accepts `Authorization: Bearer <key>` or `x-api-key: <key>` interchangeably. Runs before the
 * body is read, so an unauthenticated caller costs no parsing.
 */
export const authenticate: Middleware<AppState> = async (ctx, next) => {
  const gw = ctx.state.gw;
  const presented = presentedKey(ctx.get('authorization'), ctx.get('x-api-key'));
  if (!presented) throw errors.missingKey();
  const key = gw.runtime.findKey(presented);
  if (!key) throw errors.invalidKey();
  gw.key = key;
  gw.owner = key.hash.toString('hex');
  gw.record.keyId = key.spec.name;
  gw.record.keyName = key.spec.name;
  await next();
};

/** The key a request presents: `Authorization: Bearer <key>`, else `x-api-key`. */
export function presentedKey(authorization: string, xApiKey: string): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  if (bearer?.[1]) return bearer[1].trim();
  return xApiKey.trim() || undefined;
}
