import type { ParameterizedContext } from 'koa';
import { CACHE_HEADER, CACHE_TTL_HEADER } from '../calls/cache/cache-plan.js';
import { writeCacheHit } from '../calls/cache/cache-hit.js';
import { lookupResponseCache, rememberCacheSaver } from '../calls/cache/response-cache.js';
import { elapsedMs } from './request-record.js';
import type { SharedServices } from './services.js';
import type { AppState } from './state.js';
import type { CacheOverride } from '../config/types.js';
import { decideDeferredRpm } from './steps/key-policy.js';

/**
 * The response cache's step of a model call, before its routing loop: answers a hit at once
 * (cost 0, counted against the key's rpm only) and returns true; otherwise sets
 * `x-gateway-cache` (miss, store or bypass; nothing when the cache is off for the call) and
 * leaves the call's saver for the pipeline that stores its complete answer. Undefined (no
 * promise) when the cache is off for the call.
 */
export function answerFromCache(ctx: ParameterizedContext<AppState>, shared: SharedServices): Promise<boolean> | undefined {
  const gw = ctx.state.gw;
  const config = gw.runtime.config.cache;
  const model = gw.runtime.models.get(String(gw.body.model))?.spec.cache;
  const keyCache = gw.key?.spec.cache;
  // The common case (cache off everywhere) costs three reads and no promise.
  if (!config.enabled && !model?.enabled && !keyCache?.enabled) return undefined;
  return lookUp(ctx, shared, model, keyCache);
}

async function lookUp(ctx: ParameterizedContext<AppState>, shared: SharedServices, model: CacheOverride | undefined, keyCache: CacheOverride | undefined): Promise<boolean> {
  const gw = ctx.state.gw;
  const config = gw.runtime.config.cache;
  const lookup = await lookupResponseCache({
    store: shared.cache, config, operation: gw.route.spec.operation, surface: gw.route.surface, body: gw.body,
    who: { owner: gw.owner, team: gw.key?.team?.id }, model, key: keyCache,
    cacheControl: ctx.get('cache-control') || undefined, ttlHeader: ctx.get(CACHE_TTL_HEADER) || undefined,
  });
  if (lookup.kind === 'off') return false;
  const record = gw.record;
  if (lookup.kind === 'pass') {
    ctx.set(CACHE_HEADER, lookup.status);
    record.cache = lookup.status;
    rememberCacheSaver(gw, lookup.saver);
    return false;
  }
  await decideDeferredRpm(gw, gw.owner, shared);
  ctx.respond = false;
  const facts = writeCacheHit(ctx.res, lookup, gw.route.surface, {});
  record.cache = 'hit';
  record.savedUsd = facts.savedUsd;
  record.costUsd = 0;
  record.model = facts.model;
  record.provider = facts.provider;
  record.attempts = 0;
  record.streamed = facts.streamed;
  const u = facts.usage;
  if (u) record.usage = { input: u.inputTokens, output: u.outputTokens, cachedInput: u.cachedInputTokens ?? 0, cacheWriteInput: u.cacheWriteInputTokens ?? 0, reasoning: u.reasoningTokens ?? 0, estimated: false };
  record.ttfbMs = elapsedMs(record);
  return true;
}
