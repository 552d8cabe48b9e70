import { applyMigrations, ensurePartitionsAhead, readMigrations } from '../ledger/migrations.js';
import { maskUrl } from '../ledger/pg-pool.js';
import { runWithLedgerPool } from './ledger-config.js';

/**
 * `gateway migrate`: applies the versioned SQL of src/ledger/migrations that the database at
 * `ledger.url` has not seen (recorded in `gateway_migrations`), then creates the usage
 * partitions of this month and the next two. Safe to run again and from several hosts.
 */
export async function runMigrate(configPath: string): Promise<number> {
  return runWithLedgerPool(configPath, 'migrate', async (pool, ledger) => {
    const applied = await applyMigrations(pool, undefined, (message) => console.warn(`warning: ${message}`));
    await ensurePartitionsAhead(pool);
    const all = readMigrations();
    for (const m of applied) console.log(`applied ${String(m.version).padStart(3, '0')}-${m.name}`);
    console.log(`${maskUrl(ledger.url)}: ${applied.length === 0 ? 'up to date' : `${applied.length} migration(s) applied`} (schema version ${all.at(-1)?.version ?? 0}).`);
    return 0;
  });
}
