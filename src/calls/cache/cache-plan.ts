import type { CacheConfig, CacheOverride } from '../../config/types.js';
import { GatewayError } from '../../errors/gateway-error.js';

/** What `x-gateway-cache` says about a request whose answer may be cached. */
export type CacheStatus = 'hit' | 'semantic-hit' | 'miss' | 'bypass' | 'store';

/** Name of the response header that tells what the cache did. */
export const CACHE_HEADER = 'x-gateway-cache';
/** Response header of a semantic hit: the cosine similarity of the stored prompt (`0.973`). */
export const CACHE_SIMILARITY_HEADER = 'x-gateway-cache-similarity';
/** Request header that shortens the lifetime of the entry this request stores. */
export const CACHE_TTL_HEADER = 'x-gateway-cache-ttl';

/** How the response cache treats one request. */
export interface CachePlan {
  /** Look the answer up first. */
  readonly read: boolean;
  /** Store a complete answer. */
  readonly write: boolean;
  readonly ttlSeconds: number;
  /** The header value unless the lookup hits. */
  readonly status: Exclude<CacheStatus, 'hit' | 'semantic-hit'>;
}

/** What decides a request's cache plan. */
export interface CacheAsk {
  readonly config: CacheConfig;
  readonly operation: string;
  /** `cache:` of the model asked for (a router model's own). */
  readonly model?: CacheOverride;
  /** `cache:` of the calling key. */
  readonly key?: CacheOverride;
  /** The request's `Cache-Control` header. */
  readonly cacheControl?: string;
  /** The request's `x-gateway-cache-ttl` header. */
  readonly ttlHeader?: string;
  /** The request depends on or creates state (stored responses, files, several choices ...). */
  readonly uncacheable: boolean;
}

/**
 * The cache plan of a request, or undefined when the cache is off for it (no header at all):
 * the key's `cache.enabled` over the model's over the top-level one, and only for the listed
 * operations. `Cache-Control: no-store` and stateful requests bypass the cache (no read, no
 * write); `no-cache` skips the lookup and stores the fresh answer (`store`). The lifetime is
 * the most specific `ttl_s`, shortened (never lengthened) by `x-gateway-cache-ttl`.
 */
export function planCache(ask: CacheAsk): CachePlan | undefined {
  const { config } = ask;
  const enabled = ask.key?.enabled ?? ask.model?.enabled ?? config.enabled;
  if (!enabled || !config.operations.includes(ask.operation)) return undefined;
  let ttlSeconds = ask.key?.ttl_s ?? ask.model?.ttl_s ?? config.ttl_s;
  if (ask.ttlHeader !== undefined) ttlSeconds = Math.min(ttlSeconds, parseTtl(ask.ttlHeader));
  const directives = parseDirectives(ask.cacheControl);
  if (ask.uncacheable || directives.has('no-store') || ttlSeconds <= 0) return { read: false, write: false, ttlSeconds, status: 'bypass' };
  if (directives.has('no-cache')) return { read: false, write: true, ttlSeconds, status: 'store' };
  return { read: true, write: true, ttlSeconds, status: 'miss' };
}

function parseTtl(text: string): number {
  const trimmed = text.trim();
  if (!/^\d{1,9}$/.test(trimmed)) {
    throw new GatewayError(400, 'invalid_request_error', 'invalid_cache_ttl', `${CACHE_TTL_HEADER} must be a whole number of seconds (got '${trimmed.slice(0, 40)}').`);
  }
  return Number(trimmed);
}

function parseDirectives(header: string | undefined): Set<string> {
  const out = new Set<string>();
  if (!header) return out;
  for (const part of header.split(',')) out.add(part.trim().toLowerCase().split('=')[0]!);
  return out;
}
