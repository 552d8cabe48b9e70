import type { StoreGuard } from './redis-fallback.js';

/**
 * What a Redis-backed store wrote to this instance's memory while Redis was away, keyed by id
 * (last write wins), kept in order and written back once by whichever call first reaches Redis
 * again. Used by the file index (records and deletes) and the record store (video jobs).
 */
export interface OutageJournal<V> {
  /** Notes that `id` was written (or deleted, as the value says) to memory during an outage. */
  note(id: string, value: V): void;
  /** Entries not written back yet. */
  size(): number;
  /**
   * Runs `remote` on Redis after writing back the journal; `fallback` when the guard says so
   * (a failed write-back counts as Redis failing, so nothing is lost: entries stay for the next try).
   */
  run<T>(remote: () => Promise<T>, fallback: () => Promise<T>): Promise<T>;
}

/** A journal whose entries are written back to Redis through `writeBack(id, value)`. */
export function createOutageJournal<V>(guard: StoreGuard, writeBack: (id: string, value: V) => Promise<void>): OutageJournal<V> {
  const entries = new Map<string, V>();
  let flushing: Promise<void> | undefined;
  const flush = async () => {
    for (const [id, value] of [...entries]) {
      await writeBack(id, value);
      // An entry changed while this one was written stays for the next write-back.
      if (entries.get(id) === value) entries.delete(id);
    }
  };
  return {
    note(id, value) {
      // Re-inserting moves the id to the end, so write-back follows the order of the last writes.
      entries.delete(id);
      entries.set(id, value);
    },
    size: () => entries.size,
    run(remote, fallback) {
      return guard.run(async () => {
        if (entries.size > 0) await (flushing ??= flush().finally(() => { flushing = undefined; }));
        return remote();
      }, fallback);
    },
  };
}
