import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FileRecord, FileStore } from '../providers/types.js';
import { isFileId, type BlobStore } from './blob-store.js';
import type { FileIndex, PageRequest } from './file-index.js';

/** Where small records (jobs) live: memory by default, Redis when instances share state. */
export interface RecordStore<T> {
  put(id: string, value: T): Promise<void>;
  get(id: string): Promise<T | undefined>;
}

/** A record store in process memory. */
export function createMemoryRecordStore<T>(): RecordStore<T> {
  const map = new Map<string, T>();
  return { async put(id, v) { map.set(id, v); }, async get(id) { return map.get(id); } };
}

/** The file store the gateway's own file routes use: the provider-facing store plus listing, download, delete and retention. */
export interface ManagedFileStore extends FileStore {
  /** A stream of the bytes with their record; undefined when missing, expired or another key's. */
  open(id: string, owner: string): Promise<{ record: FileRecord; body: Readable } | undefined>;
  /** An owner's files in creation order; undefined when `after` names none of theirs. */
  list(owner: string, request: PageRequest): Promise<{ data: FileRecord[]; hasMore: boolean } | undefined>;
  /** Deletes bytes and record; false when missing or another key's. */
  delete(id: string, owner: string): Promise<boolean>;
  /** Deletes every file past its retention; returns how many. */
  sweep(): Promise<number>;
}

export interface FileStoreOptions {
  /** Retention in seconds (`files.ttl_days`); 0 = keep until deleted. */
  ttlSeconds: number;
  /** Clock in ms (tests move it). */
  now?: () => number;
  /**
   * The error for a live record whose bytes the blob store does not have (records shared
   * through Redis, bytes on another instance's disk); without it such a file reads as missing.
   */
  missingBytes?: (record: FileRecord) => Error;
}

/** Files are swept in batches of this many ids. */
const SWEEP_BATCH = 100;

/**
 * Uploads: bytes in a BlobStore (a local folder or a bucket), records in a FileIndex (memory
 * or Redis). A file is visible only to the key that uploaded it. With retention, an expired
 * file is gone on read (404 everywhere) and the sweep deletes its bytes and record.
 */
export function createFileStore(blobs: BlobStore, index: FileIndex, options: FileStoreOptions): ManagedFileStore {
  const now = options.now ?? Date.now;
  const expired = (r: FileRecord) => r.expires_at !== undefined && r.expires_at * 1000 <= now();
  const remove = async (id: string, owner?: string) => {
    // Bytes first: a record without bytes reads as missing; bytes without a record would leak.
    await blobs.delete(id);
    await index.delete(id, owner);
  };
  /** The live record of an owner, deleting it on the spot when its retention has passed. */
  const live = async (id: string, owner: string): Promise<FileRecord | undefined> => {
    if (!isFileId(id)) return undefined;
    const record = await index.get(id);
    if (!record || record.owner !== owner) return undefined;
    if (expired(record)) {
      await remove(id, record.owner);
      return undefined;
    }
    return record;
  };
  return {
    async put(meta, content, signal) {
      const ms = now();
      const created = Math.floor(ms / 1000);
      const record: FileRecord = {
        ...meta,
        id: `file-${randomBytes(12).toString('hex')}`,
        object: 'file',
        bytes: content instanceof Uint8Array ? content.byteLength : content.size,
        created_at: created,
        created_ms: ms,
        ...(options.ttlSeconds > 0 ? { expires_at: created + Math.ceil(options.ttlSeconds) } : {}),
      };
      await blobs.write(record.id, content, record.mime_type, signal);
      try {
        // A client gone while the bytes travelled never learns the id: keep nothing.
        signal?.throwIfAborted();
        await index.put(record);
      } catch (e) {
        await blobs.delete(record.id).catch(() => undefined);
        throw e;
      }
      return record;
    },
    get: live,
    async read(id, owner) {
      const record = await live(id, owner);
      if (!record) return undefined;
      const bytes = await blobs.read(id);
      if (!bytes && options.missingBytes) throw options.missingBytes(record);
      return bytes;
    },
    async open(id, owner) {
      const record = await live(id, owner);
      if (!record) return undefined;
      const body = await blobs.open(id);
      if (!body && options.missingBytes) throw options.missingBytes(record);
      return body ? { record, body } : undefined;
    },
    async list(owner, request) {
      const page = await index.page(owner, request);
      if (!page) return undefined;
      // Expired files not swept yet are left out (and deleted).
      const gone = page.records.filter(expired);
      await Promise.all(gone.map((r) => remove(r.id, r.owner)));
      return { data: page.records.filter((r) => !expired(r)), hasMore: page.hasMore };
    },
    async delete(id, owner) {
      const record = await live(id, owner);
      if (!record) return false;
      await remove(id, owner);
      return true;
    },
    async sweep() {
      if (options.ttlSeconds <= 0) return 0;
      let removed = 0;
      const cutoff = now() - options.ttlSeconds * 1000;
      for (;;) {
        const ids = await index.createdBefore(cutoff, SWEEP_BATCH);
        if (ids.length === 0) break;
        await Promise.all(ids.map((id) => remove(id)));
        removed += ids.length;
        if (ids.length < SWEEP_BATCH) break;
      }
      // Bytes whose record is gone (a crash between the two writes, records kept in a memory
      // store that restarted): past retention they go too. A record, if any, goes with them.
      for (;;) {
        const keys = await blobs.writtenBefore(cutoff, SWEEP_BATCH);
        if (keys.length === 0) return removed;
        await Promise.all(keys.map((key) => remove(key)));
        removed += keys.length;
        if (keys.length < SWEEP_BATCH) return removed;
      }
    },
  };
}
