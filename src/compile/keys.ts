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
 * (hashed here, never kept in clear). With none configured, one random key is generated.
 */
export function buildKeyRing(config: GatewayConfig, env: Env): { keys: KeyEntry[]; generatedKey?: string } {
  const keys: KeyEntry[] = config.auth.keys.map((spec) => ({ hash: Buffer.from(spec.sha256, 'hex'), spec, modelPatterns: spec.models && compileModelGlobs(spec.models) }));
  const plain = (env[config.auth.keys_env] ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  plain.forEach((k, i) => keys.push({ hash: hashKey(k), spec: { name: `env-${i + 1}`, sha256: '' } }));
  if (keys.length > 0) return { keys };
  const generatedKey = `gw-${randomBytes(24).toString('base64url')}`;
  return { keys: [{ hash: hashKey(generatedKey), spec: { name: 'generated', sha256: '' } }], generatedKey };
}

/**
 * Operator keys: hashed `auth.admin_keys` entries plus plain keys from `auth.admin_keys_env`.
 * None is ever generated: without them the admin API and a protected /metrics refuse everyone.
 */
export function buildAdminKeyRing(config: GatewayConfig, env: Env): KeyEntry[] {
  const keys: KeyEntry[] = (config.auth.admin_keys ?? []).map((a) => ({ hash: Buffer.from(a.sha256, 'hex'), spec: { name: a.name, sha256: a.sha256 } }));
  const plain = (env[config.auth.admin_keys_env ?? 'GATEWAY_ADMIN_KEYS'] ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  plain.forEach((k, i) => keys.push({ hash: hashKey(k), spec: { name: `admin-env-${i + 1}`, sha256: '' } }));
  return keys;
}

/** Finds the entry for a presented key. Compares against every entry in constant time. */
export function matchKey(keys: readonly KeyEntry[], presented: string): KeyEntry | undefined {
  const h = hashKey(presented);
  let found: KeyEntry | undefined;
  for (const k of keys) if (timingSafeEqual(k.hash, h) && !found) found = k;
  return found;
}

/** Model id globs (`*` any run of characters, `?` one) as anchored regular expressions. */
export function compileModelGlobs(globs: readonly string[]): RegExp[] {
  return globs.map((g) => new RegExp(`^${g.split('').map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.+^${}()|[\]\\/-]/g, '\\$&'))).join('')}$`, 's'));
}
