import type { ParameterizedContext } from 'koa';
import { cacheBody } from '../../compile/catalog.js';
import { listsCapability } from '../../codecs/shared/parameter-spellings.js';
import type { CachedBody, Runtime } from '../../compile/runtime.js';
import { errors } from '../../errors/gateway-error.js';
import type { RateLimiter } from '../../store/rate-limiter.js';
import type { AppState } from '../state.js';
import { presentedKey } from '../steps/authenticate.js';

const CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300';

/**
 * Anonymous discovery: rate limited per client address unless a valid key is presented
 * (authenticated traffic is never slowed by the anonymous limit).
 */
export async function limitAnonymous(ctx: ParameterizedContext<AppState>, limiter: RateLimiter): Promise<void> {
  const { runtime } = ctx.state.gw;
  const presented = presentedKey(ctx.get('authorization'), ctx.get('x-api-key'));
  if (presented && runtime.findKey(presented)) return;
  const { requests, window_seconds } = runtime.config.limits.anonymous_discovery;
  const decision = await limiter.hit(`anon:${ctx.ip}`, requests, window_seconds);
  ctx.set('RateLimit-Limit', String(requests));
  ctx.set('RateLimit-Remaining', String(decision.remaining));
  if (!decision.allowed) throw errors.rateLimited(decision.retryAfterSeconds, `Anonymous discovery is limited to ${requests} requests per ${window_seconds} s per client; retry later or send an API key.`);
}

/** GET /v1/models: the list, optionally filtered by `supported_parameters` (any spelling of a capability matches). */
export function listModels(ctx: ParameterizedContext<AppState>): void {
  const { runtime } = ctx.state.gw;
  const filter = String(ctx.query.supported_parameters ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  sendCached(ctx, filter.length === 0 ? runtime.modelList : filteredList(runtime, filter));
}

/** GET /v1/models/:provider/:model: one card, 404 in the envelope when unknown or disabled. */
export function getModel(ctx: ParameterizedContext<AppState>): void {
  const { runtime } = ctx.state.gw;
  const id = `${ctx.params.provider}/${ctx.params.model}`;
  const entry = runtime.models.get(id);
  if (!entry || entry.spec.hidden || entry.provider.missing) throw errors.modelNotFound(id);
  sendCached(ctx, cardBody(entry.card));
}

// Cards and filtered lists are serialized once per runtime, not per request.
const cardCache = new WeakMap<object, CachedBody>();
const filterCache = new WeakMap<Runtime, Map<string, CachedBody>>();

function cardBody(card: object): CachedBody {
  let c = cardCache.get(card);
  if (!c) cardCache.set(card, (c = cacheBody(card)));
  return c;
}

function filteredList(runtime: Runtime, filter: string[]): CachedBody {
  const key = [...new Set(filter)].sort().join(',');
  let perRuntime = filterCache.get(runtime);
  if (!perRuntime) filterCache.set(runtime, (perRuntime = new Map()));
  let c = perRuntime.get(key);
  if (!c) {
    const data = [...runtime.models.values()]
      .filter((m) => !m.spec.hidden && !m.provider.missing && filter.every((p) => listsCapability(m.parameters, p)))
      .map((m) => m.card);
    c = cacheBody({ object: 'list', data });
    if (perRuntime.size < 256) perRuntime.set(key, c);
  }
  return c;
}

function sendCached(ctx: ParameterizedContext<AppState>, cached: CachedBody): void {
  ctx.set('ETag', cached.etag);
  ctx.set('Cache-Control', CACHE_CONTROL);
  if (matchesEtag(ctx.get('if-none-match'), cached.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'application/json';
  ctx.body = cached.body;
}

/** If-None-Match: `*`, a list, and weak comparison (RFC 9110 13.1.2). */
function matchesEtag(header: string, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
