import type { Middleware } from 'koa';
import { matchKey } from '../../compile/keys.js';
import type { Runtime } from '../../compile/runtime.js';
import { errors } from '../../errors/gateway-error.js';
import type { AppState } from '../state.js';
import { presentedKey } from './authenticate.js';

/** Decides, from the runtime current for this request, that a route may be called without a key. */
export type AnonymousWhen = (runtime: Runtime) => boolean;

/**
 * Guards operator routes (`auth: admin`): an admin key from `auth.admin_keys` /
 * `auth.admin_keys_env` passes; a valid client key is refused with 403 (it is known, but not
 * allowed here); no key or an unknown one with 401. `anonymousWhen` opens the route to anyone
 * when config says so (e.g. `observability.metrics.public`), read per request so a reload applies.
 */
export function authenticateAdmin(anonymousWhen?: AnonymousWhen): Middleware<AppState> {
  return async (ctx, next) => {
    const gw = ctx.state.gw;
    if (anonymousWhen?.(gw.runtime)) return next();
    const presented = presentedKey(ctx.get('authorization'), ctx.get('x-api-key'));
    if (!presented) throw errors.missingKey();
    const admin = matchKey(gw.runtime.adminKeys, presented);
    if (!admin) {
      if (matchKey(gw.runtime.keys, presented)) throw errors.forbidden('This endpoint needs an admin key (auth.admin_keys); client keys are not allowed.', 'admin_key_required');
      throw errors.invalidKey();
    }
    gw.record.keyId = admin.spec.name;
    gw.record.keyName = admin.spec.name;
    await next();
  };
}
