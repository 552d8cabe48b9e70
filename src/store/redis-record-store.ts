import type { RecordStore } from './file-store.js';
import type { RedisConnection } from './redis-connection.js';
import type { StoreGuard } from './redis-fallback.js';

/**
 * A RecordStore on Redis (JSON values under `<prefix><namespace>:<id>`, optional expiry), so
 * file records and jobs written by one instance are read by any other. When Redis fails and
 * the store fails open, records go to and come from `local` (this instance's memory); a read
 * that Redis answers "missing" also looks there, so records written during an outage stay
 * readable after Redis returns.
 */
export function createRedisRecordStore<T>(conn: RedisConnection, guard: StoreGuard, namespace: string, local: RecordStore<T>, ttlSeconds = 0): RecordStore<T> {
  const keyOf = (id: string) => `${conn.prefix}${namespace}:${id}`;
  return {
    put(id, value) {
      return guard.run(
        async () => {
          const json = JSON.stringify(value);
          if (ttlSeconds > 0) await conn.client.set(keyOf(id), json, 'EX', ttlSeconds);
          else await conn.client.set(keyOf(id), json);
        },
        () => local.put(id, value),
      );
    },
    get(id) {
      return guard.run(
        async () => {
          const json = await conn.client.get(keyOf(id));
          return json === null ? local.get(id) : (JSON.parse(json) as T);
        },
        () => local.get(id),
      );
    },
  };
}
