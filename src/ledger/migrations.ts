import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';
import type { PgPool } from './pg-pool.js';

/** One versioned SQL file of src/ledger/migrations (`NNN-name.sql`). */
export interface Migration { version: number; name: string; sql: string }

/** Folder of the versioned SQL files (shipped with the package). */
export const migrationsDir = join(packageRoot, 'src', 'ledger', 'migrations');

// One lock id for "a migration is running" so two `gateway migrate` never interleave.
const MIGRATION_LOCK = 7_305_114_201;

/** Reads the migrations in version order; a file not named `NNN-name.sql` is an error. */
export function readMigrations(dir = migrationsDir): Migration[] {
  return readdirSync(dir).filter((f) => f.endsWith('.sql')).sort().map((file) => {
    const m = /^(\d+)-([a-z0-9-]+)\.sql$/.exec(file);
    if (!m) throw new Error(`migration file '${file}' is not named NNN-name.sql`);
    return { version: Number(m[1]), name: m[2]!, sql: readFileSync(join(dir, file), 'utf8') };
  });
}

/**
 * Applies the migrations not yet recorded in `gateway_migrations`, each in its own
 * transaction with its record, under an advisory lock. Returns those applied now. A migration
 * that cannot do all it would (005: no pgvector on the server) says so with a WARNING, handed
 * to `onWarning`.
 */
export async function applyMigrations(pool: PgPool, migrations = readMigrations(), onWarning?: (message: string) => void): Promise<Migration[]> {
  const client = await pool.connect();
  const notice = (n: { severity?: string; message?: string }) => {
    if (n.severity === 'WARNING' && n.message) onWarning?.(n.message);
  };
  client.on('notice', notice);
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS gateway_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM gateway_migrations')).rows.map((r) => r.version));
    const applied: Migration[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await client.query('BEGIN');
      try {
        await client.query(m.sql);
        await client.query('INSERT INTO gateway_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.version}-${m.name} failed: ${(e as Error).message}`);
      }
      applied.push(m);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.off('notice', notice);
    client.release();
  }
}

/** Versions not yet applied (all of them when the migrations table does not exist). */
export async function pendingMigrations(pool: PgPool, migrations = readMigrations()): Promise<Migration[]> {
  const exists = await pool.query<{ t: string | null }>("SELECT to_regclass('gateway_migrations')::text AS t");
  if (!exists.rows[0]?.t) return migrations;
  const done = new Set((await pool.query<{ version: number }>('SELECT version FROM gateway_migrations')).rows.map((r) => r.version));
  return migrations.filter((m) => !done.has(m.version));
}

/** Creates the month partitions of usage_events from this month to `monthsAhead` later. */
export async function ensurePartitionsAhead(pool: PgPool, monthsAhead = 2, now = new Date()): Promise<void> {
  for (let i = 0; i <= monthsAhead; i++) {
    const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i, 1));
    await pool.query('SELECT ensure_usage_partition($1)', [at.toISOString()]);
  }
}
