import type { Middleware } from 'koa';
import type { KeyEntry, Runtime } from '../../compile/runtime.js';
import { errors } from '../../errors/gateway-error.js';
import type { AppState, GatewayState } from '../../calls/state.js';
import { presentedKey } from './authenticate.js';
import { acceptKey, findClientKey, type ManagedKeySource } from '../../calls/caller-key.js';

/** Decides, from the runtime current for this request, that a route may be called without a key. */
export type AnonymousWhen = (runtime: Runtime) => boolean;

/**
 * Operator routes (`auth: admin`): an `auth.admin_keys` key passes; no key is a 401, a client
 * key a 403 (it is a real key, just not allowed here), anything else a 401. `anonymousWhen`
 * opens the route to anyone when config says so (e.g. `observability.metrics.public`), read
 * per request so a reload applies.
 */
export function authenticateAdmin(shared: ManagedKeySource, anonymousWhen?: AnonymousWhen): Middleware<AppState> {
  return async (ctx, next) => {
    const gw = ctx.state.gw;
    if (anonymousWhen?.(gw.runtime)) return next();
    const presented = presentedKey(ctx.get('authorization'), ctx.get('x-api-key'));
    if (!presented) throw errors.missingKey();
    const admin = gw.runtime.findAdminKey(presented);
    if (!admin) {
      if (await findClientKey(gw.runtime, shared, presented)) throw errors.forbidden('This endpoint needs an admin key (auth.admin_keys); client keys are not allowed.', 'admin_key_required');
      throw errors.invalidKey();
    }
    acceptAdmin(gw, admin);
    await next();
  };
}

/**
 * Routes open to both (`auth: admin-or-key`, e.g. /v1/usage): an admin key sees everything,
 * a client key is authenticated as usual and sees only its own.
 */
export function authenticateAdminOrKey(shared: ManagedKeySource): Middleware<AppState> {
  return async (ctx, next) => {
    const gw = ctx.state.gw;
    const presented = presentedKey(ctx.get('authorization'), ctx.get('x-api-key'));
    if (!presented) throw errors.missingKey();
    const admin = gw.runtime.findAdminKey(presented);
    if (admin) acceptAdmin(gw, admin);
    else {
      const key = await findClientKey(gw.runtime, shared, presented);
      if (!key) throw errors.invalidKey();
      acceptKey(gw, key);
    }
    await next();
  };
}

/** Records the operator key on the request (the ledger sees it as `admin:<name>`). */
function acceptAdmin(gw: GatewayState, admin: KeyEntry): void {
  gw.admin = admin.spec.name;
  gw.record.keyId = `admin:${admin.spec.name}`;
  gw.record.keyName = admin.spec.name;
}
