import { createReadStream } from 'node:fs';
import { appendFile, mkdir, stat, truncate } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { dirname } from 'node:path';
import type { UsageRow } from './usage-row.js';

/**
 * The ledger's local journal: an append-only JSON-lines file holding rows the database could
 * not take, in the order they were produced. Emptied only after every row in it was written.
 */
export interface UsageJournal {
  readonly path: string;
  append(rows: readonly UsageRow[]): Promise<void>;
  /**
   * The rows in file order, `size` at a time, streamed (a long outage's journal is never held in
   * memory whole); a torn line (crash mid-write) is skipped and reported.
   */
  batches(size: number): AsyncGenerator<UsageRow[]>;
  clear(): Promise<void>;
  /** Whether the file holds rows (checked at startup: a previous run may have left some). */
  hasRows(): Promise<boolean>;
}

/** Opens (lazily creates) the journal at `path`. */
export function createUsageJournal(path: string, onTornLine: (line: number) => void = () => undefined): UsageJournal {
  let dirReady = false;
  return {
    path,
    async append(rows) {
      if (rows.length === 0) return;
      if (!dirReady) {
        await mkdir(dirname(path), { recursive: true });
        dirReady = true;
      }
      // One write per batch; O_APPEND keeps concurrent processes' lines whole.
      await appendFile(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n', { encoding: 'utf8', mode: 0o600 });
    },
    async *batches(size) {
      const exists = await stat(path).then(() => true, (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? false : Promise.reject(e)));
      if (!exists) return;
      const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
      let batch: UsageRow[] = [];
      let n = 0;
      for await (const line of lines) {
        n++;
        if (!line.trim()) continue;
        try {
          batch.push(JSON.parse(line) as UsageRow);
        } catch {
          onTornLine(n);
          continue;
        }
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    },
    async clear() {
      await truncate(path, 0).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? undefined : Promise.reject(e)));
    },
    async hasRows() {
      return stat(path).then((s) => s.size > 0, () => false);
    },
  };
}
