import type { UsageJournal } from './journal.js';
import type { UsageRow } from './usage-row.js';

/** Writes rows somewhere durable; must be idempotent per (request_id, started_at). */
export type InsertRows = (rows: readonly UsageRow[]) => Promise<void>;

/** What the writer is doing, for logs, metrics and tests. */
export interface UsageWriterStats {
  queued: number;
  written: number;
  journaled: number;
  replayed: number;
  /** The journal holds rows not yet in the database. */
  journalPending: boolean;
  lastError?: string;
}

/** The request path's only contact with the ledger: `enqueue` is synchronous and never blocks. */
export interface UsageWriter {
  enqueue(row: UsageRow): void;
  /** Writes everything queued (and replays the journal) now; resolves when done or failed. */
  flush(): Promise<void>;
  /** Stops the timer and flushes; rows the database cannot take stay in the journal. */
  close(): Promise<void>;
  stats(): UsageWriterStats;
}

/** How a writer batches, where it writes and where it spills. */
export interface UsageWriterOptions {
  insert: InsertRows;
  journal: UsageJournal;
  batchSize: number;
  flushIntervalMs: number;
  /** Rows kept in memory before they spill to the journal. */
  queueLimit: number;
  onError: (message: string) => void;
  /** Whether the journal holds rows from an earlier run (replayed first). */
  journalPending?: boolean;
}

const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 5000;

/**
 * Batches rows off the request path. Rows go to the database in arrival order; when it fails,
 * the batch and everything after it go to the journal, and later flushes replay the journal in
 * order (inserts are idempotent, so a replay interrupted halfway is simply repeated) before any
 * newer row is written. Every journal and database step runs on one serial chain, so the
 * journal is never read while it is being appended to.
 */
export function createUsageWriter(o: UsageWriterOptions): UsageWriter {
  let queue: UsageRow[] = [];
  let chain: Promise<void> = Promise.resolve();
  let scheduled = false;
  let spilling = false;
  let journalPending = o.journalPending ?? false;
  let retryDelay = RETRY_MIN_MS;
  let nextRetryAt = 0;
  const stats = { written: 0, journaled: 0, replayed: 0, lastError: undefined as string | undefined };

  const serially = (step: () => Promise<void>): Promise<void> => {
    chain = chain.then(step).catch((e: unknown) => o.onError((e as Error).message));
    return chain;
  };

  const failed = (e: unknown) => {
    stats.lastError = (e as Error).message;
    nextRetryAt = Date.now() + retryDelay;
    retryDelay = Math.min(RETRY_MAX_MS, retryDelay * 2);
  };

  const toJournal = async (rows: UsageRow[]) => {
    try {
      await o.journal.append(rows);
      stats.journaled += rows.length;
      journalPending = true;
    } catch (e) {
      // Disk trouble too: keep the rows in memory, in order, and say so.
      queue = [...rows, ...queue];
      o.onError(`ledger journal ${o.journal.path}: ${(e as Error).message}`);
    }
  };

  const replay = async (): Promise<void> => {
    let replayed = 0;
    for await (const rows of o.journal.batches(o.batchSize)) {
      await o.insert(rows);
      replayed += rows.length;
    }
    await o.journal.clear();
    stats.replayed += replayed;
    journalPending = false;
  };

  const drain = async (force: boolean) => {
    scheduled = false;
    if (journalPending) {
      if (queue.length > 0) await toJournal(queue.splice(0));
      if (!force && Date.now() < nextRetryAt) return;
      try {
        await replay();
        retryDelay = RETRY_MIN_MS;
      } catch (e) {
        failed(e);
        o.onError(`ledger database unavailable, rows kept in the journal: ${(e as Error).message}`);
        return;
      }
    }
    while (queue.length > 0) {
      const batch = queue.splice(0, o.batchSize);
      try {
        await o.insert(batch);
        stats.written += batch.length;
        retryDelay = RETRY_MIN_MS;
      } catch (e) {
        failed(e);
        o.onError(`ledger database unavailable, rows go to the journal: ${(e as Error).message}`);
        await toJournal([...batch, ...queue.splice(0)]);
        return;
      }
    }
  };

  const timer = setInterval(() => { if (queue.length > 0 || journalPending) void serially(() => drain(false)); }, o.flushIntervalMs);
  timer.unref();

  return {
    enqueue(row) {
      queue.push(row);
      if (queue.length >= o.queueLimit && !spilling) {
        // The database is slow or away: bound memory by moving the backlog to disk. Taken when
        // the step runs (not now) so rows reach the journal in arrival order.
        spilling = true;
        void serially(async () => {
          spilling = false;
          await toJournal(queue.splice(0));
        });
      } else if (queue.length >= o.batchSize && !scheduled) {
        scheduled = true;
        void serially(() => drain(false));
      }
    },
    flush: () => serially(() => drain(true)),
    async close() {
      clearInterval(timer);
      await serially(() => drain(true));
    },
    stats: () => ({ queued: queue.length, journalPending, ...stats }),
  };
}
