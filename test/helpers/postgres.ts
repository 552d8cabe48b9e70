import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { applyMigrations } from '../../src/ledger/migrations.js';
import { createPgPool } from '../../src/ledger/pg-pool.js';

/** The test server (trust auth); LEDGER_TEST_URL overrides it. */
export const POSTGRES_URL = process.env.LEDGER_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A database of its own for one test file, dropped afterwards. */
export interface TestDatabase { url: string; name: string; drop(): Promise<void> }

/** Creates a uniquely named, empty database next to the test database. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** A test database with the ledger's migrations applied (the pool that ran them is closed again). */
export async function createMigratedDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  const pool = createPgPool(db.url, () => undefined, 1);
  try {
    await applyMigrations(pool);
  } finally {
    await pool.end();
  }
  return db;
}

/** Runs one query on `url` with a short-lived client. */
export async function queryOnce<T extends pg.QueryResultRow = Record<string, unknown>>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}
