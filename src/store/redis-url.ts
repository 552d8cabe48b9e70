import { readFileSync } from 'node:fs';
import type { ClusterOptions, RedisOptions } from 'ioredis';

/** How to reach Redis, read from `store.url` (and `store.tls`). */
export type RedisTarget =
  | { kind: 'single'; url: string; options: RedisOptions }
  | { kind: 'sentinel'; options: RedisOptions }
  | { kind: 'cluster'; nodes: Array<{ host: string; port: number }>; options: ClusterOptions };

/** The store kinds a URL may name, as operators say them (reported by `/readyz` and `gateway status`). */
export type StoreKind = 'memory' | 'redis' | 'redis-sentinel' | 'redis-cluster';

/** The reported store kind of a Redis connection's target. */
export function storeKindName(kind: RedisTarget['kind']): StoreKind {
  return kind === 'sentinel' ? 'redis-sentinel' : kind === 'cluster' ? 'redis-cluster' : 'redis';
}

/** Default key prefix. */
export const DEFAULT_REDIS_PREFIX = 'gw:';

/** TLS settings of the store (gateway.yaml `store.tls`). */
export interface StoreTls { ca_file?: string }

/** The store kind a `store.url` names, without connecting. */
export function storeKindOf(storeUrl: string): StoreKind {
  if (storeUrl === 'memory') return 'memory';
  return storeKindName(targetKindOf(storeUrl));
}

/** Which kind of Redis target a (non-memory) store URL names. */
function targetKindOf(storeUrl: string): RedisTarget['kind'] {
  if (storeUrl.startsWith('redis+sentinel://')) return 'sentinel';
  if (storeUrl.startsWith('redis-cluster://') || storeUrl.startsWith('rediss-cluster://')) return 'cluster';
  return 'single';
}

/**
 * Parses a store URL: `redis://` / `rediss://` (TLS), `redis+sentinel://[:pass@]h:26379,h2:26379/<master>[/db]`
 * (`?sentinel_password=` when the Sentinels require one) and `redis-cluster://[:pass@]h:p,h2:p`
 * (seed list; `rediss-cluster://` for TLS). A `prefix` query parameter sets the key prefix. A private CA comes from `tls.ca_file` (NODE_EXTRA_CA_CERTS
 * is honoured by Node itself).
 */
export function parseRedisUrl(storeUrl: string, tls: StoreTls = {}): { target: RedisTarget; prefix: string } {
  const query = storeUrl.includes('?') ? new URLSearchParams(storeUrl.slice(storeUrl.indexOf('?') + 1)) : new URLSearchParams();
  const prefix = query.get('prefix') ?? DEFAULT_REDIS_PREFIX;
  if (prefix.includes('{') || prefix.includes('}')) throw new Error('store.url prefix must not contain { or } (they mark Redis Cluster hash tags)');
  const bare = storeUrl.replace(/\?.*$/, '');
  const tlsOptions = () => (tls.ca_file ? { ca: readFileSync(tls.ca_file) } : {});
  const kind = targetKindOf(storeUrl);
  if (kind === 'single') {
    const url = new URL(bare);
    const options: RedisOptions = {};
    if (url.protocol === 'rediss:') options.tls = tlsOptions();
    return { target: { kind, url: url.toString(), options }, prefix };
  }
  const m = /^([a-z+-]+):\/\/(?:([^@/]*)@)?([^/]+)(?:\/([^/]*))?(?:\/(\d+))?\/?$/.exec(bare);
  if (!m) throw new Error(`store.url is not a valid ${kind} URL`);
  const [, scheme, auth, hostList, name, db] = m;
  const { username, password } = parseAuth(auth);
  const nodes = hostList!.split(',').map((hp) => parseHostPort(hp, kind === 'sentinel' ? 26379 : 6379));
  if (kind === 'sentinel') {
    if (!name) throw new Error('store.url: redis+sentinel:// needs the master name as its path');
    // The URL's password is the master's; Sentinels with their own take `?sentinel_password=`.
    const options: RedisOptions = { sentinels: nodes, name: decodeURIComponent(name), password, username, sentinelPassword: query.get('sentinel_password') ?? undefined, db: db ? Number(db) : 0 };
    return { target: { kind, options }, prefix };
  }
  const useTls = scheme === 'rediss-cluster';
  const options: ClusterOptions = { redisOptions: { password, username, ...(useTls ? { tls: tlsOptions() } : {}) } };
  return { target: { kind: 'cluster', nodes, options }, prefix };
}

function parseAuth(auth: string | undefined): { username?: string; password?: string } {
  if (!auth) return {};
  const i = auth.indexOf(':');
  if (i < 0) return { username: decodeURIComponent(auth) || undefined };
  return { username: decodeURIComponent(auth.slice(0, i)) || undefined, password: decodeURIComponent(auth.slice(i + 1)) || undefined };
}

function parseHostPort(hp: string, defaultPort: number): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?(?::(\d+))?$/.exec(hp.trim());
  if (!m) throw new Error('store.url has an invalid host');
  return { host: m[1]!, port: m[2] ? Number(m[2]) : defaultPort };
}

/**
 * The key of `name` owned by `owner`: `<prefix>{<owner>}:<name>`. Every key of one owner
 * shares the hash tag, so one Lua script may touch several of them on Redis Cluster. Lives
 * here, not in redis-connection.ts, so the stores that build keys do not load ioredis when
 * the store is `memory`.
 */
export function ownerKey(conn: { prefix: string }, owner: string, name: string): string {
  return `${conn.prefix}{${owner}}:${name}`;
}
