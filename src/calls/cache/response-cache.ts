import type { SurfaceCodec } from '../../codecs/codec.js';
import type { Conversation, InternalResponse, Usage } from '../../codecs/internal.js';
import type { CacheConfig, CacheOverride } from '../../config/types.js';
import type { ResponseCacheStore } from '../../store/response-cache.js';
import type { SemanticIndex } from '../../store/semantic-index.js';
import { cacheKey, isUncacheable, type CacheIdentity } from './cache-key.js';
import { planCache, type CacheStatus } from './cache-plan.js';
import { decodeRecord, encodeRecord, type CacheOrigin, type CacheRecord } from './cache-record.js';
import { semanticAsk } from './semantic-key.js';

/** A model call as the response cache sees it. */
export interface CacheRequest {
  readonly store: ResponseCacheStore;
  readonly config: CacheConfig;
  readonly operation: string;
  /** The route's text surface; absent for JSON operations (embeddings, rerank). */
  readonly surface?: SurfaceCodec;
  readonly body: Record<string, unknown>;
  readonly who: CacheIdentity;
  /** `cache:` of the model asked for. */
  readonly model?: CacheOverride;
  /** `cache:` of the calling key. */
  readonly key?: CacheOverride;
  readonly cacheControl?: string;
  readonly ttlHeader?: string;
  /** The semantic cache, when it is on for this call (text operations only). */
  readonly semantic?: SemanticSearch;
}

/** The semantic cache as one lookup uses it. */
export interface SemanticSearch {
  readonly index: SemanticIndex;
  /** `cache.semantic.embedding_model`. */
  readonly embeddingModel: string;
  /** Least cosine similarity of a hit. */
  readonly threshold: number;
  /** Called before the embedding is paid for: a request refused now (rpm) costs nothing. */
  admit(): Promise<void>;
  /** The embedding of a text (undefined when it could not be had: exact matches only then). */
  embed(text: string): Promise<number[] | undefined>;
}

/** Where a stored answer's prompt goes in the semantic index. */
interface SemanticEntry { readonly index: SemanticIndex; readonly partition: string; readonly vector: readonly number[] }

/** A stored answer found for a request. */
export interface CacheHit {
  readonly kind: 'hit';
  readonly record: CacheRecord;
  /** Whole seconds since it was stored (the `age` header). */
  readonly ageSeconds: number;
  /** The request decoded (text operations): the hit is encoded for it. */
  readonly request?: Conversation;
  /** A semantic hit: the cosine similarity of the stored prompt to this one. */
  readonly similarity?: number;
}

/** What the lookup decided: off (no header), a hit, or go on (and maybe store the answer). */
export type CacheLookup =
  | { readonly kind: 'off' }
  | CacheHit
  | { readonly kind: 'pass'; readonly status: Exclude<CacheStatus, 'hit' | 'semantic-hit'>; readonly saver?: CacheSaver };

const OFF: CacheLookup = { kind: 'off' };

/**
 * The one lookup of a model call, before its routing loop: the request's cache plan, its key
 * and (unless `no-cache` or bypassed) the stored answer. With the semantic cache on, a text
 * request that misses has the text of its last user turn embedded, and the nearest stored
 * prompt of its partition (same model, scope and everything else) at or above the threshold
 * answers it. A miss hands back the saver that stores the answer (and its prompt's embedding)
 * once it is complete.
 */
export async function lookupResponseCache(req: CacheRequest): Promise<CacheLookup> {
  const plan = planCache({
    config: req.config, operation: req.operation, model: req.model, key: req.key,
    cacheControl: req.cacheControl, ttlHeader: req.ttlHeader, uncacheable: isUncacheable(req.operation, req.body),
  });
  if (!plan) return OFF;
  if (!plan.read && !plan.write) return { kind: 'pass', status: plan.status };
  const conversation = req.surface?.decodeRequest(req.body);
  const key = cacheKey(req.operation, req.config.scope, req.who, req.body, conversation);
  if (plan.read) {
    const hit = await readHit(req.store, key, conversation);
    if (hit) return hit;
  }
  let entry: SemanticEntry | undefined;
  const semantic = req.semantic;
  const ask = semantic && conversation ? semanticAsk(req.operation, req.config.scope, req.who, req.body, conversation, semantic.embeddingModel) : undefined;
  if (semantic && ask) {
    await semantic.admit();
    const vector = await semantic.embed(ask.text);
    if (vector) {
      entry = { index: semantic.index, partition: ask.partition, vector };
      const near = plan.read ? await semantic.index.nearest(ask.partition, vector) : undefined;
      if (near && near.similarity >= semantic.threshold) {
        const hit = await readHit(req.store, near.key, conversation);
        if (hit) return { ...hit, similarity: near.similarity };
      }
    }
  }
  return { kind: 'pass', status: plan.status, saver: new CacheSaver(req.store, key, plan.ttlSeconds, entry) };
}

/** The answer stored under `key`, when it is one for this kind of request (text or JSON). */
async function readHit(store: ResponseCacheStore, key: string, conversation: Conversation | undefined): Promise<CacheHit | undefined> {
  const found = await store.get(key);
  const record = found && decodeRecord(found.value);
  if (!record || (record.kind === 'text') !== (conversation !== undefined)) return undefined;
  return { kind: 'hit', record, ageSeconds: Math.max(0, Math.floor((Date.now() - found.storedAt) / 1000)), request: conversation };
}

/**
 * Stores the answer of a call that missed, once it is known to be complete and successful. A
 * content-filtered or failed answer is never stored. The write starts before the answer is
 * sent and is not awaited: a store failure is a later miss, never a failed call.
 */
export class CacheSaver {
  constructor(private readonly store: ResponseCacheStore, private readonly key: string, private readonly ttlSeconds: number, private readonly semantic?: SemanticEntry) {}

  /** Stores a whole text answer (internal form). */
  saveText(answer: InternalResponse, origin: CacheOrigin): void {
    if (answer.finishReason === 'content_filter' || answer.finishReason === 'error') return;
    this.write({ kind: 'text', answer, ...origin });
  }

  /** Stores the JSON body of an operation (before its cost is written into it). */
  saveJson(body: unknown, origin: CacheOrigin, usage?: Usage): void {
    this.write(usage ? { kind: 'json', body, usage, ...origin } : { kind: 'json', body, ...origin });
  }

  private write(record: CacheRecord): void {
    const text = encodeRecord(record);
    if (!this.store.fits(Buffer.byteLength(text))) return;
    void this.store.set(this.key, text, this.ttlSeconds).catch(() => undefined);
    // The prompt's embedding points at the entry; an entry gone before its vector is a later miss.
    const s = this.semantic;
    if (s) void s.index.add(s.partition, this.key, s.vector, this.ttlSeconds).catch(() => undefined);
  }
}

const savers = new WeakMap<object, CacheSaver>();

/** Hands a request's saver to the pipeline that will produce its answer (keyed by the request's state). */
export function rememberCacheSaver(requestState: object, saver: CacheSaver | undefined): void {
  if (saver) savers.set(requestState, saver);
}

/** The saver of a request whose answer should be stored, if any. */
export function cacheSaverOf(requestState: object): CacheSaver | undefined {
  return savers.get(requestState);
}
