import { loadProject } from '../config/load-project.js';
import { formatDiagnostic } from '../config/diagnostics.js';
import type { LedgerConfig } from '../config/types.js';
import { createPgPool, type PgPool } from '../ledger/pg-pool.js';

/**
 * The `ledger:` section of a config for the database commands (`migrate`, `usage`), or an
 * error message: the config must load without errors and set `ledger.url`.
 */
export function readLedgerConfig(configPath: string): LedgerConfig & { url: string } | string {
  const project = loadProject(configPath);
  const errors = project.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) return errors.map(formatDiagnostic).join('\n');
  const ledger = project.config?.ledger;
  if (!ledger?.url) return `${configPath}: ledger.url is not set (postgres://...); the usage ledger is off.`;
  return { ...ledger, url: ledger.url };
}

/**
 * Runs one database command against the config's ledger: loads the config, opens a one-client
 * pool, runs `work`, and always closes the pool. Returns the exit code: 1 (message on stderr,
 * prefixed `gateway <command>:` for a failed query) when the config or the database fails.
 */
export async function runWithLedgerPool(
  configPath: string,
  command: string,
  work: (pool: PgPool, ledger: LedgerConfig & { url: string }) => Promise<number>,
): Promise<number> {
  const ledger = readLedgerConfig(configPath);
  if (typeof ledger === 'string') {
    console.error(ledger);
    return 1;
  }
  const pool = createPgPool(ledger.url, () => undefined, 1);
  try {
    return await work(pool, ledger);
  } catch (e) {
    console.error(`gateway ${command}: ${(e as Error).message}`);
    return 1;
  } finally {
    await pool.end().catch(() => undefined);
  }
}
