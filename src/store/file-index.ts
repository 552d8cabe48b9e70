import type { FileRecord } from '../providers/types.js';

/** One page of an owner's files. */
export interface FilePage { records: FileRecord[]; hasMore: boolean }

/** How a listing pages: `after` is the id the previous page ended with. */
export interface PageRequest { limit: number; after?: string; order: 'asc' | 'desc' }

/**
 * File records with two orders on top: per owner by creation (listing) and across owners by
 * creation (retention sweep). Memory for one instance, Redis for several.
 */
export interface FileIndex {
  put(record: FileRecord): Promise<void>;
  get(id: string): Promise<FileRecord | undefined>;
  /** Removes the record and its index entries (a missing one is not an error). */
  delete(id: string, owner?: string): Promise<void>;
  /** An owner's records in creation order; undefined when `after` is not one of theirs. */
  page(owner: string, request: PageRequest): Promise<FilePage | undefined>;
  /** Ids created before `beforeMs` (oldest first), at most `limit`. */
  createdBefore(beforeMs: number, limit: number): Promise<string[]>;
}

/** The order key of a record: creation time in ms (records from before it existed: seconds). */
export function orderOf(record: FileRecord): number {
  return record.created_ms ?? record.created_at * 1000;
}

/** A file index in process memory. */
export function createMemoryFileIndex(): FileIndex {
  const records = new Map<string, FileRecord>();
  const sorted = (list: FileRecord[]) => list.sort((a, b) => orderOf(a) - orderOf(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    async put(record) { records.set(record.id, record); },
    async get(id) { return records.get(id); },
    async delete(id) { records.delete(id); },
    async page(owner, { limit, after, order }) {
      const mine = sorted([...records.values()].filter((r) => r.owner === owner));
      if (order === 'desc') mine.reverse();
      let start = 0;
      if (after !== undefined) {
        const at = mine.findIndex((r) => r.id === after);
        if (at < 0) return undefined;
        start = at + 1;
      }
      return { records: mine.slice(start, start + limit), hasMore: mine.length > start + limit };
    },
    async createdBefore(beforeMs, limit) {
      return sorted([...records.values()].filter((r) => orderOf(r) < beforeMs)).slice(0, limit).map((r) => r.id);
    },
  };
}
