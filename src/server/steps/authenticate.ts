import type { Middleware } from 'koa';
import { acceptKey, findManagedKey, type ManagedKeySource } from '../../calls/caller-key.js';
import { errors } from '../../errors/gateway-error.js';
import { firstHeader } from '../../errors/upstream-failure.js';
import type { AppState } from '../../calls/state.js';

/**
 * Accepts `Authorization: Bearer <key>` or `x-api-key: <key>` interchangeably: a key of
 * gateway.yaml / the environment, else a managed key (admin API, PostgreSQL). Runs before the
 * body is read, so an unauthenticated caller costs no parsing.
 */
export function authenticate(shared: ManagedKeySource): Middleware<AppState> {
  return (ctx, next) => {
    const gw = ctx.state.gw;
    const headers = ctx.req.headers;
    const presented = presentedKey(headers.authorization ?? '', firstHeader(headers['x-api-key']) ?? '');
    if (!presented) throw errors.missingKey();
    // A key of gateway.yaml or the environment is found in memory: no await (an async step
    // costs a promise and two microtask turns per request); managed keys may need PostgreSQL.
    const known = gw.runtime.findKey(presented);
    if (known) {
      acceptKey(gw, known);
      return next();
    }
    return findManagedKey(shared, presented).then((key) => {
      if (!key) throw errors.invalidKey();
      acceptKey(gw, key);
      return next();
    });
  };
}

/** The key a request presents: `Authorization: Bearer <key>`, else `x-api-key`. */
export function presentedKey(authorization: string, xApiKey: string): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  if (bearer?.[1]) return bearer[1].trim();
  return xApiKey.trim() || undefined;
}
