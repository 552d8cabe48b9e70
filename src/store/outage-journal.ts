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

/** How often a journal with entries tries to write them back while no call does. */
export const WRITE_BACK_INTERVAL_MS = 250;

/** What the journal needs of the store connection: its reconnects start a write-back at once. */
interface ConnectionEvents { onReady(listener: () => void): void; healthy(): boolean }

/**
 * A journal whose entries are written back to Redis through `writeBack(id, value)`: by the first
 * call that reaches Redis again, and also in the background (when `conn` reconnects, and every
 * WRITE_BACK_INTERVAL_MS while entries wait and the guard lets calls through), so what one
 * instance wrote during an outage is visible to the others soon after Redis returns even when
 * this instance gets no traffic.
 */
export function createOutageJournal<V>(guard: StoreGuard, writeBack: (id: string, value: V) => Promise<void>, conn?: ConnectionEvents): OutageJournal<V> {
  const entries = new Map<string, V>();
  let flushing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const flush = async () => {
    for (const [id, value] of [...entries]) {
      await writeBack(id, value);
      // An entry changed while this one was written stays for the next write-back.
      if (entries.get(id) === value) entries.delete(id);
    }
  };
  const run = <T>(remote: () => Promise<T>, fallback: () => Promise<T>): Promise<T> => guard.run(async () => {
    if (entries.size > 0) await (flushing ??= flush().finally(() => { flushing = undefined; }));
    return remote();
  }, fallback);
  const writeBackNow = () => {
    if (entries.size === 0 || flushing || conn?.healthy() === false) return;
    // Skipped while the guard pauses calls; a failure counts as Redis failing; the entries stay.
    void run(async () => undefined, async () => undefined).catch(() => undefined);
  };
  const stopWhenEmpty = () => {
    if (entries.size > 0 || !timer) return;
    clearInterval(timer);
    timer = undefined;
  };
  conn?.onReady(writeBackNow);
  return {
    note(id, value) {
      // Re-inserting moves the id to the end, so write-back follows the order of the last writes.
      entries.delete(id);
      entries.set(id, value);
      if (timer) return;
      timer = setInterval(() => {
        writeBackNow();
        stopWhenEmpty();
      }, WRITE_BACK_INTERVAL_MS);
      timer.unref();
    },
    size: () => entries.size,
    run,
  };
}
