import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileRecord, FileStore } from '../providers/types.js';

/** Where file records (metadata) live: memory by default, Redis when instances share state. */
export interface RecordStore<T> {
  put(id: string, value: T): Promise<void>;
  get(id: string): Promise<T | undefined>;
}

/** A record store in process memory. */
export function createMemoryRecordStore<T>(): RecordStore<T> {
  const map = new Map<string, T>();
  return { async put(id, v) { map.set(id, v); }, async get(id) { return map.get(id); } };
}

/**
 * Uploads kept in a local directory (bytes) with their records in a RecordStore. A file is
 * visible only to the key that uploaded it.
 */
export function createLocalFileStore(dir: string, records: RecordStore<FileRecord>): FileStore {
  let ready: Promise<unknown> | undefined;
  const ensureDir = () => (ready ??= mkdir(dir, { recursive: true }));
  return {
    async put(meta, content) {
      await ensureDir();
      const record: FileRecord = { ...meta, id: `file-${randomBytes(12).toString('hex')}`, object: 'file', bytes: content.byteLength, created_at: Math.floor(Date.now() / 1000) };
      await writeFile(join(dir, record.id), content);
      await records.put(record.id, record);
      return record;
    },
    async get(id, owner) {
      const r = await records.get(id);
      return r && r.owner === owner ? r : undefined;
    },
    async read(id, owner) {
      const r = await this.get(id, owner);
      if (!r || !/^file-[0-9a-f]+$/.test(id)) return undefined;
      try {
        return new Uint8Array(await readFile(join(dir, id)));
      } catch {
        return undefined;
      }
    },
  };
}
