import { createHash } from 'node:crypto';
import { buildResultKey } from '../config/remembered-checks.js';
import { readCached, writeCached } from '../config/startup-cache.js';
import type { GatewayConfig, RouteSpec } from '../config/types.js';

// Field names whose values are secrets: they enter the hash only as their sha256.
const SECRET_FIELD = /(secret|password|passwd|token|api_key|apikey|private_key|access_key|credential)s?$/i;

/**
 * The fleet's fingerprint of a config: sha256 of the effective config (after `${VAR}`
 * substitution and defaults) in canonical JSON, without `server.host` and `server.port` (they
 * differ per instance by design), with every secret replaced by its own sha256 and passwords
 * in URLs (`store.url`) likewise. The route files count by content (not by the folder they sit
 * in). Two instances with equal hashes serve the same contract.
 */
export function computeConfigHash(config: GatewayConfig, routes: readonly RouteSpec[] = []): string {
  const { host: _host, port: _port, ...server } = config.server;
  const { routes: _folder, ...rest } = config;
  const view = { ...rest, server, route_specs: routes.map(({ file: _file, ...spec }) => spec).sort((a, b) => `${a.method} ${a.path}`.localeCompare(`${b.method} ${b.path}`)) };
  return createHash('sha256').update(canonicalJson(view, '')).digest('hex');
}

/**
 * computeConfigHash through the startup cache: the canonical form is built in JavaScript, ~15 ms
 * cold for the shipped config on the first readiness probe, while the key (this build, the
 * config and routes as plain JSON) takes ~1 ms. Another key order is another key with the same
 * hash; without a build id it is computed every time.
 */
export function rememberedConfigHash(config: GatewayConfig, routes: readonly RouteSpec[] = []): string {
  const key = buildResultKey('config-hash', JSON.stringify(config), JSON.stringify(routes));
  const kept = key === undefined ? undefined : readCached(key, 'hash');
  if (kept !== undefined && /^[0-9a-f]{64}$/.test(kept)) return kept;
  const hash = computeConfigHash(config, routes);
  if (key !== undefined) writeCached(key, 'hash', hash);
  return hash;
}

/**
 * JSON with sorted object keys, secrets hashed; `undefined` fields are left out. Written with
 * one string per level and no entry arrays: the first readiness probe computes it (15 ms cold
 * for the shipped config with entries, filter, sort and map per object).
 */
function canonicalJson(value: unknown, field: string): string {
  if (typeof value === 'string') {
    if (SECRET_FIELD.test(field)) return JSON.stringify(`sha256:${sha256(value)}`);
    return JSON.stringify(value.includes('://') ? hideUrlPassword(value) : value);
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(value[i], field);
    return `${out}]`;
  }
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    // sort() without a comparator orders by UTF-16 code units, as `a < b` does.
    const keys = Object.keys(record).sort();
    let out = '{';
    for (const key of keys) {
      const v = record[key];
      if (v === undefined) continue;
      out += `${out.length === 1 ? '' : ','}${JSON.stringify(key)}:${canonicalJson(v, key)}`;
    }
    return `${out}}`;
  }
  return JSON.stringify(value ?? null);
}

/** `scheme://user:pass@host` -> `scheme://user:sha256:<hash>@host`. */
function hideUrlPassword(s: string): string {
  return s.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)([^@/]+)@/i, (_m, head: string, pass: string) => `${head}sha256:${sha256(pass)}@`);
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}
