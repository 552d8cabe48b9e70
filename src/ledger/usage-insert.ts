import type { PgPool } from './pg-pool.js';
import type { InsertRows } from './usage-writer.js';
import { usageColumnDefaults, usageColumns, usageColumnTypes, type UsageRow } from './usage-row.js';

// One statement per batch whatever its size: one array parameter per column, unnest()ed.
const INSERT_SQL = `INSERT INTO usage_events (${usageColumns.join(', ')})
  SELECT * FROM unnest(${usageColumns.map((c, i) => `$${i + 1}::${usageColumnTypes[c]}[]`).join(', ')})
  ON CONFLICT (request_id, started_at) DO NOTHING`;

// SQLSTATE 23514: no partition of usage_events takes the row (a month not created yet).
const NO_PARTITION = '23514';

/**
 * Inserts rows into `usage_events`, creating the month partitions they need first. Idempotent:
 * a row already present (same request id and start time) is left as it is.
 */
export function createUsageInsert(pool: PgPool): InsertRows {
  const knownMonths = new Set<string>();
  const ensureMonths = async (rows: readonly UsageRow[]) => {
    for (const r of rows) {
      const month = r.started_at.slice(0, 7);
      if (knownMonths.has(month)) continue;
      await pool.query('SELECT ensure_usage_partition($1)', [`${month}-01T00:00:00Z`]);
      knownMonths.add(month);
    }
  };
  return async (rows) => {
    if (rows.length === 0) return;
    await ensureMonths(rows);
    // A row journaled by an older version lacks the newer columns: their defaults go in.
    const params = usageColumns.map((c) => rows.map((r) => r[c] ?? usageColumnDefaults[c] ?? null));
    try {
      await pool.query(INSERT_SQL, params);
    } catch (e) {
      if ((e as { code?: string }).code !== NO_PARTITION) throw e;
      // Someone dropped a partition under us: forget what we knew and try once more.
      knownMonths.clear();
      await ensureMonths(rows);
      await pool.query(INSERT_SQL, params);
    }
  };
}
