/**
 * The semantic cache's index: unit vectors under opaque partitions, each pointing at an entry of
 * the response cache by its key. Generic state (no notion of prompts or answers): the call
 * pipeline (src/calls/cache/semantic-lookup.ts) decides what a partition is and what the vector
 * of a request is.
 */

/** The nearest stored vector of a partition, with its cosine similarity to the one asked about. */
export interface SemanticNeighbour {
  /** The response cache key the vector was stored with. */
  readonly key: string;
  /** Cosine similarity in [-1, 1]. */
  readonly similarity: number;
}

/** A store of vectors: this instance's memory, or PostgreSQL with pgvector (shared by the fleet). */
export interface SemanticIndex {
  /** Where the index lives (`memory` or `pgvector`), for logs and `gateway status`. */
  readonly kind: 'memory' | 'pgvector';
  /** The most similar live vector of `partition`, or undefined (none, or the store failed: a miss). */
  nearest(partition: string, vector: readonly number[]): Promise<SemanticNeighbour | undefined>;
  /** Stores `vector` for `key` in `partition` for `ttlSeconds`; a failure is silently not stored. */
  add(partition: string, key: string, vector: readonly number[], ttlSeconds: number): Promise<void>;
  close(): Promise<void>;
}

/** The vector scaled to length 1 (cosine similarity is then a dot product); undefined for a zero or non-finite vector. */
export function unitVector(vector: readonly number[]): Float32Array | undefined {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  if (!Number.isFinite(norm) || norm === 0) return undefined;
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}

interface MemoryVector { readonly partition: string; readonly key: string; readonly unit: Float32Array; readonly expiresAt: number }

/**
 * This instance's index: vectors by partition, bounded by `maxEntries` (the oldest stored go
 * first) and by their lifetime (expired vectors are dropped when a lookup meets them). A lookup
 * compares the query with every live vector of its partition, which holds only prompts of one
 * model, scope and parameter set.
 */
export function createMemorySemanticIndex(maxEntries: number, now: () => number = Date.now): SemanticIndex {
  const partitions = new Map<string, Map<string, MemoryVector>>();
  // Every vector in the order it was stored (a re-store moves it to the end): the eviction order.
  const order = new Map<string, MemoryVector>();
  const id = (partition: string, key: string) => `${partition}\n${key}`;
  const drop = (v: MemoryVector) => {
    order.delete(id(v.partition, v.key));
    const p = partitions.get(v.partition);
    p?.delete(v.key);
    if (p?.size === 0) partitions.delete(v.partition);
  };
  return {
    kind: 'memory',
    async nearest(partition, vector) {
      const p = partitions.get(partition);
      const query = p && unitVector(vector);
      if (!p || !query) return undefined;
      const at = now();
      let best: SemanticNeighbour | undefined;
      for (const v of [...p.values()]) {
        if (v.expiresAt <= at) {
          drop(v);
          continue;
        }
        if (v.unit.length !== query.length) continue;
        let dot = 0;
        for (let i = 0; i < query.length; i++) dot += query[i]! * v.unit[i]!;
        if (!best || dot > best.similarity) best = { key: v.key, similarity: Math.min(1, dot) };
      }
      return best;
    },
    async add(partition, key, vector, ttlSeconds) {
      const unit = unitVector(vector);
      if (!unit || maxEntries <= 0) return;
      const old = partitions.get(partition)?.get(key);
      if (old) drop(old);
      const v: MemoryVector = { partition, key, unit, expiresAt: now() + ttlSeconds * 1000 };
      let p = partitions.get(partition);
      if (!p) partitions.set(partition, (p = new Map()));
      p.set(key, v);
      order.set(id(partition, key), v);
      for (const oldest of order.values()) {
        if (order.size <= maxEntries) break;
        drop(oldest);
      }
    },
    async close() {
      partitions.clear();
      order.clear();
    },
  };
}
