import type { ParameterizedContext } from 'koa';
import { cacheBody } from '../../compile/catalog.js';
import type { CachedBody, KeyEntry } from '../../compile/runtime.js';
import { errors } from '../../errors/gateway-error.js';
import type { RateLimiter } from '../../store/rate-limiter.js';
import type { AppState } from '../../calls/state.js';
import { presentedKey } from '../steps/authenticate.js';
import { findClientKey, type ManagedKeySource } from '../../calls/caller-key.js';
import { modelListBody } from '../../calls/model-list.js';

const CACHE_CONTROL = 'public, max-age=60, stale-while-revalidate=300';

/**
 * Anonymous discovery: rate limited per client address unless a valid key is presented
 * (authenticated traffic is never slowed by the anonymous limit). Resolves to that key.
 */
export async function limitAnonymous(ctx: ParameterizedContext<AppState>, limiter: RateLimiter, shared?: ManagedKeySource): Promise<KeyEntry | undefined> {
  const { runtime } = ctx.state.gw;
  const presented = presentedKey(ctx.get('authorization'), ctx.get('x-api-key'));
  // A revoked, expired or unreadable key is treated as no key here: discovery stays anonymous.
  const key = presented ? await findClientKey(runtime, shared ?? {}, presented).catch(() => undefined) : undefined;
  if (key) return key;
  const { requests, window_seconds } = runtime.config.limits.anonymous_discovery;
  const decision = await limiter.hit(`anon:${ctx.ip}`, requests, window_seconds);
  ctx.set('RateLimit-Limit', String(requests));
  ctx.set('RateLimit-Remaining', String(decision.remaining));
  if (!decision.allowed) throw errors.rateLimited(decision.retryAfterSeconds, `Anonymous discovery is limited to ${requests} requests per ${window_seconds} s per client; retry later or send an API key.`);
  return undefined;
}

/**
 * GET /v1/models: the list, optionally filtered by `supported_parameters` (any spelling of a
 * capability matches). Sent with a key
 * whose `models` globs restrict it, only the models that key may call (anonymous: all).
 */
export function listModels(ctx: ParameterizedContext<AppState>, key?: KeyEntry): void {
  const { runtime } = ctx.state.gw;
  const filter = String(ctx.query.supported_parameters ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const patterns = key?.modelPatterns;
  // Per-key lists vary by credential: never shared by caches.
  if (patterns) ctx.set('Vary', 'Authorization, x-api-key');
  sendCached(ctx, !patterns && filter.length === 0 ? runtime.modelList : modelListBody(runtime, patterns ? key : undefined, filter));
}

/** GET /v1/models/:provider/:model: one card, 404 in the envelope when unknown or disabled. */
export function getModel(ctx: ParameterizedContext<AppState>): void {
  const { runtime } = ctx.state.gw;
  const id = `${ctx.params.provider}/${ctx.params.model}`;
  const entry = runtime.models.get(id);
  if (!entry || entry.spec.hidden || entry.provider.missing) throw errors.modelNotFound(id);
  sendCached(ctx, cardBody(entry.card));
}

// Cards are serialized once per runtime, not per request.
const cardCache = new WeakMap<object, CachedBody>();

function cardBody(card: object): CachedBody {
  let c = cardCache.get(card);
  if (!c) cardCache.set(card, (c = cacheBody(card)));
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
