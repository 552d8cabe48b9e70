import type { RecordStore } from './file-store.js';
import { createOutageJournal } from './outage-journal.js';
import type { RedisConnection } from './redis-connection.js';
import type { StoreGuard } from './redis-fallback.js';

/**
 * A RecordStore on Redis (JSON values under `<prefix><namespace>:<id>`, optional expiry), so
 * records such as video jobs written by one instance are read by any other. When Redis fails
 * and the store fails open, records go to and come from `local` (this instance's memory); what
 * was written there is journaled and written back to Redis by the first call that reaches
 * Redis again (as the file index does), so jobs created during an outage become visible to
 * every instance. A read that Redis answers "missing" also looks in memory, for a record whose
 * write-back is still pending.
 */
export function createRedisRecordStore<T>(conn: RedisConnection, guard: StoreGuard, namespace: string, local: RecordStore<T>, ttlSeconds = 0): RecordStore<T> {
  const keyOf = (id: string) => `${conn.prefix}${namespace}:${id}`;
  const write = async (id: string, value: T) => {
    const json = JSON.stringify(value);
    if (ttlSeconds > 0) await conn.client.set(keyOf(id), json, 'EX', ttlSeconds);
    else await conn.client.set(keyOf(id), json);
  };
  const journal = createOutageJournal<T>(guard, write, conn);
  return {
    put(id, value) {
      return journal.run(() => write(id, value), async () => {
        journal.note(id, value);
        await local.put(id, value);
      });
    },
    get(id) {
      return journal.run(
        async () => {
          const json = await conn.client.get(keyOf(id));
          return json === null ? local.get(id) : (JSON.parse(json) as T);
        },
        () => local.get(id),
      );
    },
  };
}
