import type { SpendHold } from '../billing/spend-hold.js';
import { hashKey } from '../compile/keys.js';
import type { KeyEntry, Runtime } from '../compile/runtime.js';
import { GatewayError } from '../errors/gateway-error.js';
import { openKeySpend, openRealtimeHold, type KeyPolicyServices } from './key-spend.js';
import type { GatewayState } from './state.js';

/*
 * The caller's key: found by the secret a request presents (a key of gateway.yaml or the
 * environment, else a managed key), recorded on the request, and the spend hold of the key that
 * owns a realtime session. The server's authentication steps and upgrades read it from here.
 */

/** What a managed key lookup finds (admin/managed-keys.ts answers it). */
type ManagedKeyFound = { status: 'ok'; entry: KeyEntry } | { status: 'unknown' | 'revoked' | 'expired' };

/** Where managed keys (admin API, PostgreSQL) are found: the usage ledger, when one is configured. */
export interface ManagedKeySource {
  readonly usageLedger?: { readonly managedKeys: { lookup(hash: Buffer): Promise<ManagedKeyFound>; lookupById(id: string): Promise<ManagedKeyFound> } };
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
export async function findClientKey(runtime: Runtime, shared: ManagedKeySource, presented: string): Promise<KeyEntry | undefined> {
  return runtime.findKey(presented) ?? findManagedKey(shared, presented);
}

/** A managed key (admin API, PostgreSQL) by its secret; undefined without a key store. */
export async function findManagedKey(shared: ManagedKeySource, presented: string): Promise<KeyEntry | undefined> {
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

/**
 * The spend hold of the key that owns a realtime session: a YAML/env key by hash, a managed key
 * (`key:<id>`) from the database. Null when that managed key is no longer valid.
 */
export async function sessionHold(services: KeyPolicyServices & ManagedKeySource, keys: readonly KeyEntry[], owner: string): Promise<SpendHold | undefined | null> {
  const managed = /^key:(.+)$/.exec(owner);
  if (!managed || !services.usageLedger) return openRealtimeHold(services, keys, owner);
  const found = await services.usageLedger.managedKeys.lookupById(managed[1]!);
  return found.status === 'ok' ? openKeySpend(found.entry, owner, services) : null;
}
