/**
 * The response cache's store: opaque values under hashed keys, each with its own lifetime.
 * Generic state (no notion of requests or answers): the call pipeline (src/calls/cache/) decides
 * what is stored and how it is read back.
 */

/** A value read back, with when it was stored. */
export interface CachedValue {
  readonly value: string;
  /** Epoch milliseconds when the value was stored (the `age` header). */
  readonly storedAt: number;
}

/** A store of cached answers: memory (one instance) or Redis (shared by the fleet). */
export interface ResponseCacheStore {
  /** The value under `key`, or undefined (never stored, expired, evicted, or the store failed: a miss). */
  get(key: string): Promise<CachedValue | undefined>;
  /** Stores `value` for `ttlSeconds`; a value over the entry bound or a store failure is silently not stored. */
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  /** Whether a value of this many bytes may be stored. */
  fits(bytes: number): boolean;
}

/** Bounds of a cache store (gateway.yaml `cache.max_entry_bytes`, `cache.max_total_bytes`). */
export interface ResponseCacheLimits {
  readonly maxEntryBytes: number;
  /** Memory store only: total bytes kept, least recently used evicted first. */
  readonly maxTotalBytes: number;
}

interface MemoryEntry { value: string; storedAt: number; expiresAt: number; bytes: number }

/**
 * This instance's cache: a Map in least-recently-used order (a read moves its entry to the
 * end), bounded by the total bytes of the values; expired entries are dropped when read or
 * when they reach the front.
 */
export function createMemoryResponseCache(limits: ResponseCacheLimits, now: () => number = Date.now): ResponseCacheStore {
  const entries = new Map<string, MemoryEntry>();
  let total = 0;
  const drop = (key: string, entry: MemoryEntry) => {
    entries.delete(key);
    total -= entry.bytes;
  };
  const fits = (bytes: number) => bytes <= limits.maxEntryBytes && bytes <= limits.maxTotalBytes;
  return {
    fits,
    async get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        drop(key, entry);
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      return { value: entry.value, storedAt: entry.storedAt };
    },
    async set(key, value, ttlSeconds) {
      // UTF-16 length x 2 would overcount ASCII; the byte length is what max_*_bytes means.
      const bytes = Buffer.byteLength(value);
      if (!fits(bytes)) return;
      const old = entries.get(key);
      if (old) drop(key, old);
      const at = now();
      entries.set(key, { value, storedAt: at, expiresAt: at + ttlSeconds * 1000, bytes });
      total += bytes;
      for (const [k, e] of entries) {
        if (total <= limits.maxTotalBytes) break;
        drop(k, e);
      }
    },
  };
}
