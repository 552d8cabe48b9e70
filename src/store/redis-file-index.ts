import type { FileRecord } from '../providers/types.js';
import { orderOf, type FileIndex } from './file-index.js';
import type { RedisConnection } from './redis-connection.js';
import { createOutageJournal } from './outage-journal.js';
import type { StoreGuard } from './redis-fallback.js';

/**
 * A FileIndex on Redis, shared by every instance: the record as JSON under `file:<id>` (the
 * key the record store used before, so existing records stay readable), the owner's ids in a
 * sorted set `files:owner:{<owner>}` and all ids in `files:created`, both scored by creation
 * time in ms. Only single-key commands, so it runs on Redis Cluster too.
 *
 * When Redis fails and the store fails open, this instance's memory index answers instead, and
 * what it wrote there (uploads, deletes) is journaled and written back to Redis by the first
 * call that reaches Redis again, so files uploaded during an outage become visible to every
 * instance and files deleted during it stay deleted.
 */
export function createRedisFileIndex(conn: RedisConnection, guard: StoreGuard, local: FileIndex): FileIndex {
  const r = conn.client;
  const recordKey = (id: string) => `${conn.prefix}file:${id}`;
  const ownerKey = (owner: string) => `${conn.prefix}files:owner:{${owner}}`;
  const allKey = `${conn.prefix}files:created`;
  const readRecord = async (id: string): Promise<FileRecord | undefined> => {
    const json = await r.get(recordKey(id));
    return json === null ? undefined : (JSON.parse(json) as FileRecord);
  };
  const writeRecord = async (record: FileRecord) => {
    const score = orderOf(record);
    await r.set(recordKey(record.id), JSON.stringify(record));
    await Promise.all([r.zadd(ownerKey(record.owner), score, record.id), r.zadd(allKey, score, record.id)]);
  };
  const deleteRecord = async (id: string, owner?: string) => {
    const known = owner ?? (await readRecord(id))?.owner;
    await Promise.all([r.del(recordKey(id)), r.zrem(allKey, id), known ? r.zrem(ownerKey(known), id) : undefined]);
  };

  // Outage journal: ids written to memory (value: the record) or deleted (value: null) while
  // Redis was away. Written back once, by whichever call first reaches Redis again.
  const journal = createOutageJournal<FileRecord | null>(guard, (id, record) => (record ? writeRecord(record) : deleteRecord(id)), conn);
  const run = journal.run;

  return {
    put(record) {
      return run(() => writeRecord(record), async () => {
        journal.note(record.id, record);
        await local.put(record);
      });
    },
    get(id) {
      // A record still only in memory (journal not written back yet) stays readable here.
      return run(async () => (await readRecord(id)) ?? local.get(id), () => local.get(id));
    },
    delete(id, owner) {
      return run(async () => {
        await Promise.all([deleteRecord(id, owner), local.delete(id, owner)]);
      }, async () => {
        journal.note(id, null);
        await local.delete(id, owner);
      });
    },
    page(owner, { limit, after, order }) {
      return run(async () => {
        const key = ownerKey(owner);
        let start = 0;
        if (after !== undefined) {
          const rank = order === 'desc' ? await r.zrevrank(key, after) : await r.zrank(key, after);
          if (rank === null) return undefined;
          start = rank + 1;
        }
        // One more than asked tells whether another page follows.
        const ids = order === 'desc' ? await r.zrevrange(key, start, start + limit) : await r.zrange(key, start, start + limit);
        // One GET per id (not MGET): record keys of one owner may sit in different Cluster slots.
        const records = (await Promise.all(ids.slice(0, limit).map(readRecord))).filter((x): x is FileRecord => x !== undefined);
        return { records, hasMore: ids.length > limit };
      }, () => local.page(owner, { limit, after, order }));
    },
    createdBefore(beforeMs, limit) {
      return run(
        () => r.zrangebyscore(allKey, '-inf', `(${beforeMs}`, 'LIMIT', 0, limit),
        () => local.createdBefore(beforeMs, limit),
      );
    },
  };
}
