import { appendFile, mkdir, readFile, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { UsageRow } from './usage-row.js';

/**
 * The ledger's local journal: an append-only JSON-lines file holding rows the database could
 * not take, in the order they were produced. Emptied only after every row in it was written.
 */
export interface UsageJournal {
  readonly path: string;
  append(rows: readonly UsageRow[]): Promise<void>;
  /** Every row in file order; a torn last line (crash mid-write) is skipped and reported. */
  read(): Promise<UsageRow[]>;
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
    async read() {
      const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? '' : Promise.reject(e)));
      const rows: UsageRow[] = [];
      text.split('\n').forEach((line, i) => {
        if (!line.trim()) return;
        try {
          rows.push(JSON.parse(line) as UsageRow);
        } catch {
          onTornLine(i + 1);
        }
      });
      return rows;
    },
    async clear() {
      await truncate(path, 0).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? undefined : Promise.reject(e)));
    },
    async hasRows() {
      return (await this.read()).length > 0;
    },
  };
}
