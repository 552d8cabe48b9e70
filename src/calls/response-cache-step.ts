import { CACHE_HEADER, CACHE_TTL_HEADER } from './cache/cache-plan.js';
import { writeCacheHit } from './cache/cache-hit.js';
import { embedPrompt, type EmbeddingServices, type OwnOperation } from './cache/prompt-embedding.js';
import { lookupResponseCache, rememberCacheSaver, type SemanticSearch } from './cache/response-cache.js';
import type { CacheOverride } from '../config/types.js';
import type { ResponseCacheStore } from '../store/response-cache.js';
import type { SemanticIndex } from '../store/semantic-index.js';
import type { CallExchange } from './exchange.js';
import { decideDeferredRpm, type KeyPolicyServices } from './key-spend.js';
import { elapsedMs } from './request-record.js';
import type { GatewayState } from './state.js';

/** Least cosine similarity of a semantic hit unless `cache.semantic.threshold` says otherwise. */
const DEFAULT_THRESHOLD = 0.95;

/**
 * The services the cache step uses: the cache itself, the rpm limiter a hit counts on, and
 * for the semantic cache its index and the request events its embedding calls are told to.
 */
export interface CacheStepServices extends KeyPolicyServices, EmbeddingServices {
  readonly cache: ResponseCacheStore;
  /** Set when `cache.semantic.embedding_model` is. */
  readonly semantic?: SemanticIndex;
}

/**
 * The response cache's step of a model call, before its routing loop: answers a hit at once
 * (cost 0, counted against the key's rpm only) and returns true; otherwise sets
 * `x-gateway-cache` (miss, store or bypass; nothing when the cache is off for the call) and
 * leaves the call's saver for the pipeline that stores its complete answer. Undefined (no
 * promise) when the cache is off for the call.
 */
export function answerFromCache<S extends CacheStepServices>(ctx: CallExchange, shared: S, own: OwnOperation<S>): Promise<boolean> | undefined {
  const gw = ctx.state.gw;
  const config = gw.runtime.config.cache;
  const model = gw.runtime.models.get(String(gw.body.model))?.spec.cache;
  const keyCache = gw.key?.spec.cache;
  // The common case (cache off everywhere) costs three reads and no promise.
  if (!config.enabled && !model?.enabled && !keyCache?.enabled) return undefined;
  return lookUp(ctx, shared, own, model, keyCache);
}

async function lookUp<S extends CacheStepServices>(ctx: CallExchange, shared: S, own: OwnOperation<S>, model: CacheOverride | undefined, keyCache: CacheOverride | undefined): Promise<boolean> {
  const gw = ctx.state.gw;
  const config = gw.runtime.config.cache;
  const lookup = await lookupResponseCache({
    store: shared.cache, config, operation: gw.route.spec.operation, surface: gw.route.surface, body: gw.body,
    who: { owner: gw.owner, team: gw.key?.team?.id }, model, key: keyCache,
    cacheControl: ctx.get('cache-control') || undefined, ttlHeader: ctx.get(CACHE_TTL_HEADER) || undefined,
    semantic: semanticSearch(gw, shared, own),
  });
  if (lookup.kind === 'off') return false;
  const record = gw.record;
  if (lookup.kind === 'pass') {
    ctx.res.setHeader(CACHE_HEADER, lookup.status);
    record.cache = lookup.status;
    rememberCacheSaver(gw, lookup.saver);
    return false;
  }
  await decideDeferredRpm(gw, gw.owner, shared);
  ctx.respond = false;
  const facts = writeCacheHit(ctx.res, lookup, gw.route.surface, {});
  record.cache = lookup.similarity === undefined ? 'hit' : 'semantic-hit';
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

/**
 * The semantic cache for this call, when `cache.semantic.embedding_model` is set and the route
 * is a text one: the prompt is embedded through the gateway's own embeddings path, charged to
 * the asking key, after its rpm is decided (the request counts against rpm hit or miss).
 */
function semanticSearch<S extends CacheStepServices>(gw: GatewayState, shared: S, own: OwnOperation<S>): SemanticSearch | undefined {
  const settings = gw.runtime.config.cache.semantic;
  const model = settings?.embedding_model;
  if (!model || !shared.semantic || !gw.route.surface) return undefined;
  return {
    index: shared.semantic,
    embeddingModel: model,
    threshold: settings.threshold ?? DEFAULT_THRESHOLD,
    admit: () => decideDeferredRpm(gw, gw.owner, shared),
    embed: (text) => embedPrompt(gw, shared, own, model, text),
  };
}
