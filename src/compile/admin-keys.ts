import type { Env } from '../config/env.js';
import type { GatewayConfig } from '../config/types.js';
import { hashKey } from './keys.js';
import type { KeyEntry } from './runtime.js';

/**
 * Operator keys: hashed `auth.admin_keys` entries plus plain keys from `auth.admin_keys_env`
 * (hashed here, never kept in clear). None configured means no admin access at all: unlike
 * client keys, an admin key is never generated.
 */
export function buildAdminKeyRing(config: GatewayConfig, env: Env): KeyEntry[] {
  const keys: KeyEntry[] = config.auth.admin_keys.map((spec) => ({ hash: Buffer.from(spec.sha256, 'hex'), spec }));
  const plain = (env[config.auth.admin_keys_env] ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  plain.forEach((k, i) => keys.push({ hash: hashKey(k), spec: { name: `admin-env-${i + 1}`, sha256: '' } }));
  return keys;
}
