import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { createKeyStore, type KeyStore } from '../admin/key-store.js';
import { createManagedKeys, type ManagedKeys } from '../admin/managed-keys.js';
import type { LedgerConfig } from '../config/types.js';
import type { RequestEvents } from '../calls/request-record.js';
import { createUsageJournal } from './journal.js';
import { ensurePartitionsAhead, pendingMigrations } from './migrations.js';
import { createPgPool, maskUrl, type PgPool } from './pg-pool.js';
import { createUsageInsert } from './usage-insert.js';
import { isBilled, rowFromRecord } from './usage-row.js';
import { createUsageWriter, type UsageWriter } from './usage-writer.js';

/** The PostgreSQL-backed services: usage ledger, managed keys and teams. */
export interface LedgerServices {
  pool: PgPool;
  writer: UsageWriter;
  keys: KeyStore;
  managedKeys: ManagedKeys;
  /** Flushes the queue (rows the database cannot take stay in the journal) and disconnects. */
  close(): Promise<void>;
}

// At most one line per 10 s for a flapping database.
function throttled(logger: Logger, message: string): (err: string) => void {
  let last = 0;
  return (err) => {
    if (Date.now() - last < 10_000) return;
    last = Date.now();
    logger.warn({ ledger: 'postgres', err: { message: err } }, message);
  };
}

/**
 * Opens the ledger on `config.url` and subscribes it to finished requests: each billed request
 * becomes one queued row (the request path only enqueues). Starting never waits on the
 * database: if it is down, rows go to the journal until it returns.
 */
export async function openLedger(config: LedgerConfig & { url: string }, events: RequestEvents, logger: Logger): Promise<LedgerServices> {
  const warn = throttled(logger, 'ledger database error');
  const pool = createPgPool(config.url, warn);
  const journal = createUsageJournal(resolve(config.journal), (line) => logger.warn({ ledger: 'journal', line }, 'ledger journal: torn line skipped'));
  const writer = createUsageWriter({
    insert: createUsageInsert(pool),
    journal,
    batchSize: config.batch_size,
    flushIntervalMs: config.flush_interval_ms,
    queueLimit: config.queue_limit,
    onError: throttled(logger, 'usage ledger'),
    journalPending: await journal.hasRows(),
  });
  const keys = createKeyStore(pool);
  const managedKeys = createManagedKeys(keys, config.url, config.key_cache_ttl_ms, throttled(logger, 'managed keys'));
  try {
    const pending = await pendingMigrations(pool);
    if (pending.length > 0) logger.error({ ledger: maskUrl(config.url), pending: pending.map((m) => `${m.version}-${m.name}`) }, 'ledger database needs migrations: run `gateway migrate`');
    else await ensurePartitionsAhead(pool);
  } catch (e) {
    logger.warn({ ledger: maskUrl(config.url), err: { message: (e as Error).message } }, 'ledger database unreachable at start; rows go to the journal until it answers');
  }
  const unsubscribe = events.subscribe({ finished: (r) => { if (isBilled(r)) writer.enqueue(rowFromRecord(r)); } });
  return {
    pool,
    writer,
    keys,
    managedKeys,
    async close() {
      unsubscribe();
      await writer.close();
      const s = writer.stats();
      if (s.journalPending) logger.warn({ ledger: 'journal', path: journal.path }, 'ledger database unreachable at shutdown; rows kept in the journal for the next start');
      await managedKeys.close();
      await pool.end().catch(() => undefined);
    },
  };
}
