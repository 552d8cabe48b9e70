import { loadProject } from '../config/load-project.js';
import { formatDiagnostic } from '../config/diagnostics.js';
import type { LedgerConfig } from '../config/types.js';

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
