import type { InternalResponse, Usage } from '../../codecs/internal.js';

/** Who made a stored answer and what it cost then (the saving of each hit). */
export interface CacheOrigin {
  /** Canonical id of the model that answered. */
  readonly model: string;
  readonly provider: string;
  /** What the answer cost when it was made (USD). */
  readonly costUsd: number;
}

/**
 * One stored answer: a text answer in the internal form (replayed in the asking surface and
 * mode), or the JSON body of another operation (embeddings, rerank) as the client got it.
 */
export type CacheRecord =
  | (CacheOrigin & { readonly kind: 'text'; readonly answer: InternalResponse })
  | (CacheOrigin & { readonly kind: 'json'; readonly body: unknown; readonly usage?: Usage });

/** The stored text of a record. */
export function encodeRecord(record: CacheRecord): string {
  return JSON.stringify({ v: 1, ...record });
}

/** A stored record read back, or undefined when it is not one this version wrote (a miss). */
export function decodeRecord(text: string): CacheRecord | undefined {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const r = data as Record<string, unknown>;
  if (r.v !== 1 || typeof r.model !== 'string' || typeof r.provider !== 'string' || typeof r.costUsd !== 'number') return undefined;
  if (r.kind === 'text' && typeof r.answer === 'object' && r.answer !== null) return r as unknown as CacheRecord;
  if (r.kind === 'json' && 'body' in r) return r as unknown as CacheRecord;
  return undefined;
}
