/**
 * Usage ledger write throughput against a real PostgreSQL: N rows enqueued as fast as the
 * request path would, then flushed; reports rows per second and the enqueue cost per row.
 * `node dist/bench/ledger-writer.js [rows]` (LEDGER_TEST_URL, default the local test server;
 * a scratch database is created and dropped).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUsageJournal } from '../src/ledger/journal.js';
import { applyMigrations } from '../src/ledger/migrations.js';
import { createPgPool } from '../src/ledger/pg-pool.js';
import { createUsageInsert } from '../src/ledger/usage-insert.js';
import type { UsageRow } from '../src/ledger/usage-row.js';
import { createUsageWriter } from '../src/ledger/usage-writer.js';
import { createTestDatabase } from '../test/helpers/postgres.js';

async function main(rows: number): Promise<void> {
  const db = await createTestDatabase();
  const pool = createPgPool(db.url, () => undefined, 4);
  try {
    await applyMigrations(pool);
    const writer = createUsageWriter({
      insert: createUsageInsert(pool),
      journal: createUsageJournal(join(mkdtempSync(join(tmpdir(), 'gw-bench-')), 'j.jsonl')),
      batchSize: 500, flushIntervalMs: 1000, queueLimit: 1_000_000, onError: (m) => console.error(m),
    });
    const base = Date.now();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < rows; i++) {
      const row: UsageRow = {
        request_id: `req_${i}`, started_at: new Date(base + i).toISOString(), key_id: `key_${i % 50}`, key_name: null, team: `team_${i % 5}`,
        model: `sandbox/model-${i % 10}`, requested_model: null, provider: 'sandbox', upstream: null, operation: 'chat.completions', route: null,
        input_tokens: 100, output_tokens: 50, cached_input_tokens: 0, reasoning_tokens: 0, tokens_estimated: false, cost_usd: '0.000123',
        status: 200, error_code: null, latency_ms: 20, ttft_ms: 5, attempts: 1, streamed: false, cache_hit: false, saved_usd: '0', cache_write_tokens: 0, prompt_cache_saved_usd: '0',
      };
      writer.enqueue(row);
    }
    const t1 = process.hrtime.bigint();
    await writer.close();
    const t2 = process.hrtime.bigint();
    const n = Number((await pool.query<{ n: string }>('SELECT count(*) AS n FROM usage_events')).rows[0]!.n);
    const enqueueNs = Number(t1 - t0) / rows;
    const totalS = Number(t2 - t0) / 1e9;
    console.log(JSON.stringify({ rows, stored: n, enqueue_ns_per_row: Math.round(enqueueNs), seconds: +totalS.toFixed(2), rows_per_second: Math.round(rows / totalS) }));
  } finally {
    await pool.end();
    await db.drop();
  }
}

await main(Number(process.argv[2] ?? 100_000));
