import type { SettleEntry } from './spend-ledger.js';

/** One settlement (or release) Redis has not confirmed yet. */
export interface PendingSettle {
  holdId: string;
  entries: readonly SettleEntry[];
  actualNano: number;
  /** false: only release the hold (a refused or abandoned reservation), count nothing. */
  count: boolean;
}

/**
 * This instance's journal of settlements Redis did not confirm (down, stalled, timed out).
 * Each is written back, in order, once Redis answers again; the settle script applies a hold
 * id at most once, so an entry Redis did apply before its answer was lost is a no-op on
 * replay. Spend and request counts are never lost while the process lives, and never doubled.
 */
export interface SettleJournal {
  add(entry: PendingSettle): void;
  /** Entries not yet written back. */
  size(): number;
  /** Writes back what it can, oldest first; stops at the first failure. Resolves to how many were written. */
  flush(): Promise<number>;
  /** Flushes every `intervalMs` while entries wait (timer unref'd). */
  start(intervalMs: number): void;
  stop(): void;
}

/**
 * A journal writing back through `apply` (the Redis settle script); `onFlushed` hears each
 * drained backlog. An entry whose failure `isPermanent` says retrying cannot fix (Redis
 * answered with an error, not silence) is dropped and handed to `onDropped`, so it cannot
 * block the entries behind it.
 */
export function createSettleJournal(apply: (entry: PendingSettle) => Promise<void>, onFlushed?: (count: number) => void, isPermanent: (e: unknown) => boolean = () => false, onDropped?: (entry: PendingSettle, e: unknown) => void): SettleJournal {
  const queue: PendingSettle[] = [];
  let flushing: Promise<number> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const drain = async (): Promise<number> => {
    let written = 0;
    while (queue.length > 0) {
      try {
        await apply(queue[0]!);
      } catch (e) {
        if (!isPermanent(e)) break;
        onDropped?.(queue[0]!, e);
      }
      queue.shift();
      written++;
    }
    if (written > 0 && queue.length === 0) onFlushed?.(written);
    return written;
  };
  return {
    add(entry) {
      queue.push(entry);
    },
    size: () => queue.length,
    flush() {
      flushing ??= drain().finally(() => { flushing = undefined; });
      return flushing;
    },
    start(intervalMs) {
      timer = setInterval(() => { if (queue.length > 0) void this.flush(); }, intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}
