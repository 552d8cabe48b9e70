import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Env } from '../config/env.js';
import type { GatewayConfig } from '../config/types.js';
import type { KeyEntry } from './runtime.js';

/** sha256 of a key as raw bytes. */
export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/**
 * Accepted keys: hashed entries of gateway.yaml plus plain keys from the `keys_env` variable
 * (hashed here, never kept in clear). With none configured, one random key is generated, or
 * `keepGenerated` (the key this process generated before) is kept, so a reload does not
 * invalidate the key clients were given.
 */
export function buildKeyRing(config: GatewayConfig, env: Env, keepGenerated?: string): { keys: KeyEntry[]; generatedKey?: string } {
  const keys: KeyEntry[] = config.auth.keys.map((spec) => ({ hash: Buffer.from(spec.sha256, 'hex'), spec, modelPatterns: spec.models && compileModelGlobs(spec.models), providerPatterns: spec.providers && compileModelGlobs(spec.providers) }));
  keys.push(...plainKeys(env[config.auth.keys_env], 'env'));
  if (keys.length > 0) return { keys };
  const generatedKey = keepGenerated ?? `gw-${randomBytes(24).toString('base64url')}`;
  return { keys: [{ hash: hashKey(generatedKey), spec: { name: 'generated', sha256: '' } }], generatedKey };
}

/**
 * Operator keys: hashed `auth.admin_keys` entries plus plain keys from `auth.admin_keys_env`.
 * None is ever generated: without them the admin API and a protected /metrics refuse everyone.
 */
export function buildAdminKeyRing(config: GatewayConfig, env: Env): KeyEntry[] {
  const keys: KeyEntry[] = (config.auth.admin_keys ?? []).map((a) => ({ hash: Buffer.from(a.sha256, 'hex'), spec: { name: a.name, sha256: a.sha256 } }));
  keys.push(...plainKeys(env[config.auth.admin_keys_env ?? 'GATEWAY_ADMIN_KEYS'], 'admin-env'));
  return keys;
}

/** Entries of a comma-separated plain key list (hashed at once), named `<prefix>-1`, `<prefix>-2` ... */
function plainKeys(list: string | undefined, prefix: string): KeyEntry[] {
  const plain = (list ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  return plain.map((k, i) => ({ hash: hashKey(k), spec: { name: `${prefix}-${i + 1}`, sha256: '' } }));
}

/** Finds the entry for a presented key. Compares against every entry in constant time. */
export function matchKey(keys: readonly KeyEntry[], presented: string): KeyEntry | undefined {
  const h = hashKey(presented);
  let found: KeyEntry | undefined;
  for (const k of keys) if (timingSafeEqual(k.hash, h) && !found) found = k;
  return found;
}

/** Most presented keys remembered per runtime (a fleet's active keys fit; an attacker can't grow it). */
const KEY_CACHE_LIMIT = 10_000;

/**
 * A key lookup with a bounded memory of keys already proven valid, so the sha256 and the
 * constant-time scan run once per key instead of once per request. Only successful lookups
 * are remembered: a wrong key always takes the hashed, constant-time path, so the cache
 * answers nothing an attacker does not already hold. Built per runtime: a reload that removes
 * a key forgets it.
 */
export function createKeyLookup(keys: readonly KeyEntry[]): (presented: string) => KeyEntry | undefined {
  const known = new Map<string, KeyEntry>();
  return (presented) => {
    const hit = known.get(presented);
    if (hit) return hit;
    const found = matchKey(keys, presented);
    if (found) {
      if (known.size >= KEY_CACHE_LIMIT) known.delete(known.keys().next().value!);
      known.set(presented, found);
    }
    return found;
  };
}

/** Model id globs (`*` any run of characters, `?` one) as anchored regular expressions. */
export function compileModelGlobs(globs: readonly string[]): RegExp[] {
  return globs.map((g) => new RegExp(`^${g.split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&'))).join('')}$`, 's'));
}
