import { findItem, listItemIds, type ResponseStore, type ResponseStoreLimits, type StoredResponse } from './response-store.js';

interface Entry { json: string; bytes: number; expiresAt: number; itemIds: string[] }

/**
 * The in-process ResponseStore: records expire after `ttlSeconds` and the total is bounded by
 * `maxTotalBytes` (oldest evicted first; a Map keeps insertion order). Values are kept as JSON
 * text so a caller can never mutate a stored record, exactly like the Redis store.
 */
export function createMemoryResponseStore(limits: ResponseStoreLimits, now: () => number = Date.now): ResponseStore {
  const responses = new Map<string, Entry>();
  const items = new Map<string, string>();
  let total = 0;
  const keyOf = (owner: string, id: string) => `${owner}\u0000${id}`;

  const remove = (key: string, owner: string): void => {
    const entry = responses.get(key);
    if (!entry) return;
    responses.delete(key);
    total -= entry.bytes;
    for (const itemId of entry.itemIds) if (items.get(keyOf(owner, itemId)) === key) items.delete(keyOf(owner, itemId));
  };
  const read = (owner: string, id: string): StoredResponse | undefined => {
    const key = keyOf(owner, id);
    const entry = responses.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now()) {
      remove(key, owner);
      return undefined;
    }
    return JSON.parse(entry.json) as StoredResponse;
  };

  return {
    async save(owner, stored) {
      const json = JSON.stringify(stored);
      const bytes = Buffer.byteLength(json);
      if (bytes > limits.maxBytes) return false;
      const key = keyOf(owner, stored.id);
      remove(key, owner);
      const itemIds = listItemIds(stored);
      responses.set(key, { json, bytes, expiresAt: now() + limits.ttlSeconds * 1000, itemIds });
      total += bytes;
      for (const itemId of itemIds) items.set(keyOf(owner, itemId), key);
      for (const [oldest] of responses) {
        if (total <= limits.maxTotalBytes) break;
        remove(oldest, oldest.slice(0, oldest.indexOf('\u0000')));
      }
      return true;
    },
    async load(owner, id) {
      return read(owner, id);
    },
    async loadItems(owner, ids) {
      const out = new Map<string, Record<string, unknown>>();
      for (const itemId of ids) {
        const key = items.get(keyOf(owner, itemId));
        if (key === undefined) continue;
        const stored = read(owner, key.slice(key.indexOf('\u0000') + 1));
        const item = stored && findItem(stored, itemId);
        if (item) out.set(itemId, item);
      }
      return out;
    },
  };
}
