import type { Middleware } from 'koa';
import { hashKey } from '../../compile/keys.js';
import type { KeyEntry, Runtime } from '../../compile/runtime.js';
import { errors, GatewayError } from '../../errors/gateway-error.js';
import { firstHeader } from '../../errors/upstream-failure.js';
import type { SharedServices } from '../services.js';
import type { AppState, GatewayState } from '../../calls/state.js';

/**
 * Accepts `Authorization: Bearer <key>` or `x-api-key: <key>` interchangeably: a key of
 * gateway.yaml / the environment, else a managed key (admin API, PostgreSQL). Runs before the
 * body is read, so an unauthenticated caller costs no parsing.
 */
export function authenticate(shared: Pick<SharedServices, 'usageLedger'>): Middleware<AppState> {
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

/** Records the calling key on the request: owner of spend, files and jobs, and the ledger's key id. */
export function acceptKey(gw: GatewayState, key: KeyEntry): void {
  gw.key = key;
  gw.owner = ownerOf(key);
  gw.record.keyId = key.id ?? key.spec.name;
  gw.record.keyName = key.spec.name;
  if (key.team) gw.record.team = key.team.name;
}

const owners = new WeakMap<KeyEntry, string>();

/**
 * The owner name of a key's spend, files and jobs: a managed key's id (so a rotation keeps
 * them), else the hex of its hash. Made once per key entry, not per request (the hex encoding
 * and the string are per-request garbage otherwise, and one string keeps its hash cached for
 * the store's Map lookups).
 */
function ownerOf(key: KeyEntry): string {
  let owner = owners.get(key);
  if (owner === undefined) {
    owner = key.id ? `key:${key.id}` : key.hash.toString('hex');
    owners.set(key, owner);
  }
  return owner;
}

/**
 * The client key a presented secret belongs to, or undefined. Revoked and expired managed keys
 * are refused with their own message; a managed key store that cannot be read is a 503.
 */
export async function findClientKey(runtime: Runtime, shared: Pick<SharedServices, 'usageLedger'>, presented: string): Promise<KeyEntry | undefined> {
  return runtime.findKey(presented) ?? findManagedKey(shared, presented);
}

/** A managed key (admin API, PostgreSQL) by its secret; undefined without a key store. */
async function findManagedKey(shared: Pick<SharedServices, 'usageLedger'>, presented: string): Promise<KeyEntry | undefined> {
  if (!shared.usageLedger) return undefined;
  let found;
  try {
    found = await shared.usageLedger.managedKeys.lookup(hashKey(presented));
  } catch {
    throw new GatewayError(503, 'api_error', 'key_store_unavailable', 'API keys cannot be checked right now (key store unreachable); retry shortly.', undefined, { 'Retry-After': '1' });
  }
  if (found.status === 'ok') return found.entry;
  if (found.status === 'revoked') throw new GatewayError(401, 'authentication_error', 'key_revoked', 'This API key has been revoked.');
  if (found.status === 'expired') throw new GatewayError(401, 'authentication_error', 'key_expired', 'This API key has expired.');
  return undefined;
}

/** The key a request presents: `Authorization: Bearer <key>`, else `x-api-key`. */
export function presentedKey(authorization: string, xApiKey: string): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization.trim());
  if (bearer?.[1]) return bearer[1].trim();
  return xApiKey.trim() || undefined;
}
