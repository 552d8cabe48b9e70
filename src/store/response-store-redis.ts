import type { RedisConnection } from './redis-connection.js';
import { ownerKey } from './redis-url.js';
import type { StoreGuard } from './redis-fallback.js';
import { findItem, listItemIds, type ResponseStore, type ResponseStoreLimits, type StoredResponse } from './response-store.js';

/**
 * The ResponseStore on Redis, shared by every instance: the record is JSON under
 * `<prefix>{resp:<owner>}:<id>` and each item id points at its response under
 * `<prefix>{resp:<owner>}:item:<item id>`, all with the TTL (SET EX), written in one MULTI.
 * The owner is part of every key, so one key's ids never resolve for another, and of the hash
 * tag, so the MULTI and the MGETs stay on one slot on Redis Cluster. When Redis fails,
 * `guard` decides: fall back to this instance's memory store (`open`) or answer 503 (`closed`);
 * a miss in Redis also looks in `local`, so responses stored during an outage stay readable.
 */
export function createRedisResponseStore(conn: RedisConnection, guard: StoreGuard, limits: ResponseStoreLimits, local: ResponseStore): ResponseStore {
  const responseKey = (owner: string, id: string) => ownerKey(conn, `resp:${owner}`, id);
  const itemKey = (owner: string, id: string) => ownerKey(conn, `resp:${owner}`, `item:${id}`);
  return {
    save(owner, stored) {
      return guard.run(
        async () => {
          const json = JSON.stringify(stored);
          if (Buffer.byteLength(json) > limits.maxBytes) return false;
          const multi = conn.client.multi().set(responseKey(owner, stored.id), json, 'EX', limits.ttlSeconds);
          for (const itemId of listItemIds(stored)) multi.set(itemKey(owner, itemId), stored.id, 'EX', limits.ttlSeconds);
          const results = await multi.exec();
          const failed = results?.find(([err]) => err !== null);
          if (failed) throw failed[0];
          return true;
        },
        () => local.save(owner, stored),
      );
    },
    load(owner, id) {
      return guard.run(
        async () => {
          const json = await conn.client.get(responseKey(owner, id));
          return json === null ? local.load(owner, id) : (JSON.parse(json) as StoredResponse);
        },
        () => local.load(owner, id),
      );
    },
    loadItems(owner, ids) {
      return guard.run(
        async () => {
          const out = new Map<string, Record<string, unknown>>();
          if (ids.length === 0) return out;
          const responseIds = await conn.client.mget(ids.map((id) => itemKey(owner, id)));
          const wanted = [...new Set(responseIds.filter((r): r is string => r !== null))];
          const jsons = wanted.length > 0 ? await conn.client.mget(wanted.map((r) => responseKey(owner, r))) : [];
          const byId = new Map(wanted.map((r, i) => [r, jsons[i] ? (JSON.parse(jsons[i]!) as StoredResponse) : undefined]));
          const missing: string[] = [];
          ids.forEach((itemId, i) => {
            const stored = byId.get(responseIds[i] ?? '');
            const item = stored && findItem(stored, itemId);
            if (item) out.set(itemId, item);
            else missing.push(itemId);
          });
          if (missing.length > 0) for (const [k, v] of await local.loadItems(owner, missing)) out.set(k, v);
          return out;
        },
        () => local.loadItems(owner, ids),
      );
    },
  };
}
