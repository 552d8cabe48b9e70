import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createUsageJournal } from '../../src/ledger/journal.js';
import { applyMigrations } from '../../src/ledger/migrations.js';
import { createPgPool, type PgPool } from '../../src/ledger/pg-pool.js';
import { createUsageInsert } from '../../src/ledger/usage-insert.js';
import { formatUsd, type UsageRow } from '../../src/ledger/usage-row.js';
import { createUsageWriter } from '../../src/ledger/usage-writer.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { makeTempDir } from '../helpers/temp-dir.js';

function row(n: number, at = Date.UTC(2026, 10, 20, 12, 0, 0) + n): UsageRow {
  return {
    request_id: `req_${String(n).padStart(5, '0')}`, started_at: new Date(at).toISOString(), key_id: 'k', key_name: 'k', team: null,
    model: 'sandbox/echo-1', requested_model: null, provider: 'sandbox', upstream: null, operation: 'chat.completions', route: 'chat-completions.yaml',
    input_tokens: 3, output_tokens: 5, cached_input_tokens: 0, reasoning_tokens: 0, tokens_estimated: false, cost_usd: '0.000013',
    status: 200, error_code: null, latency_ms: 7, ttft_ms: null, attempts: 0, streamed: false, cache_hit: false, saved_usd: '0', cache_write_tokens: 0, prompt_cache_saved_usd: '0',
  };
}

describe('ledger/usage-writer', () => {
  const dir = makeTempDir('gw-writer-');

  describe('#createUsageWriter (insert failures injected)', () => {
    it('writes rows in arrival order through failures: the failed batch and all after it go to the journal, replayed first', async () => {
      const written: string[] = [];
      let down = true;
      const journal = createUsageJournal(join(dir, 'order.jsonl'));
      const writer = createUsageWriter({
        insert: async (rows) => {
          if (down) throw new Error('connection refused');
          written.push(...rows.map((r) => r.request_id));
        },
        journal, batchSize: 4, flushIntervalMs: 60_000, queueLimit: 1000, onError: () => undefined,
      });
      for (let i = 0; i < 10; i++) writer.enqueue(row(i));
      await writer.flush(); // the database is down: rows 0-9 go to the journal
      expect(writer.stats().journalPending).to.equal(true);
      for (let i = 10; i < 15; i++) writer.enqueue(row(i));
      await writer.flush(); // replay fails again: 10-14 appended behind them
      expect(readFileSync(journal.path, 'utf8').trim().split('\n')).to.have.length(15);
      down = false;
      for (let i = 15; i < 18; i++) writer.enqueue(row(i));
      await writer.close();
      expect(written).to.deep.equal(Array.from({ length: 18 }, (_, i) => row(i).request_id));
      expect(readFileSync(journal.path, 'utf8')).to.equal('');
      // While the journal holds rows, newer ones queue behind them there (order before speed).
      expect(writer.stats()).to.include({ written: 0, replayed: 18, journalPending: false });
    });

    it('bounds memory: past queue_limit the backlog spills to the journal, in order', async () => {
      const written: string[] = [];
      let up = false;
      const journal = createUsageJournal(join(dir, 'spill.jsonl'));
      const writer = createUsageWriter({
        insert: async (rows) => { if (!up) throw new Error('down'); written.push(...rows.map((r) => r.request_id)); },
        journal, batchSize: 100, flushIntervalMs: 60_000, queueLimit: 5, onError: () => undefined,
      });
      for (let i = 0; i < 12; i++) writer.enqueue(row(i));
      await writer.flush();
      expect(writer.stats().queued).to.equal(0);
      expect(readFileSync(journal.path, 'utf8').trim().split('\n')).to.have.length(12);
      up = true;
      await writer.close();
      expect(written).to.deep.equal(Array.from({ length: 12 }, (_, i) => row(i).request_id));
    });
  });

  describe('#createUsageJournal', () => {
    it('replays a journal left by a crash mid-write: whole lines in order, the torn one reported and skipped', async () => {
      const path = join(dir, 'torn.jsonl');
      writeFileSync(path, `${JSON.stringify(row(1))}\n${JSON.stringify(row(2))}\n{"request_id":"req_000`);
      const torn: number[] = [];
      const journal = createUsageJournal(path, (line) => torn.push(line));
      expect(await journal.hasRows()).to.equal(true);
      const written: string[] = [];
      const writer = createUsageWriter({
        insert: async (rows) => { written.push(...rows.map((r) => r.request_id)); },
        journal, batchSize: 1, flushIntervalMs: 60_000, queueLimit: 10, onError: () => undefined, journalPending: true,
      });
      await writer.close();
      expect(written).to.deep.equal([row(1).request_id, row(2).request_id]);
      expect(torn).to.deep.equal([3]);
      expect(await journal.hasRows()).to.equal(false);
    });
  });

  describe('#createUsageInsert (real PostgreSQL)', function () {
    this.timeout(30_000);
    let db: TestDatabase;
    let pool: PgPool;
    before(async () => {
      db = await createTestDatabase();
      pool = createPgPool(db.url, () => undefined, 2);
      await applyMigrations(pool);
    });
    after(async () => {
      await pool?.end();
      await db?.drop();
    });

    it('replaying rows already written doubles none (ON CONFLICT on request id and start time)', async () => {
      const insert = createUsageInsert(pool);
      const rows = Array.from({ length: 20 }, (_, i) => row(i));
      await insert(rows.slice(0, 12));
      // A replay after a commit whose answer was lost: the same rows again, and the rest.
      const journal = createUsageJournal(join(dir, 'dupes.jsonl'));
      await journal.append(rows);
      const writer = createUsageWriter({ insert, journal, batchSize: 7, flushIntervalMs: 60_000, queueLimit: 1000, onError: () => undefined, journalPending: true });
      await writer.close();
      const r = await pool.query<{ n: string; d: string; cost: string }>('SELECT count(*) AS n, count(DISTINCT request_id) AS d, sum(cost_usd)::text AS cost FROM usage_events');
      expect(r.rows[0]).to.deep.equal({ n: '20', d: '20', cost: '0.000260000' });
    });

    it('creates the month partition a row needs (rows from another month land in their own partition)', async () => {
      const insert = createUsageInsert(pool);
      await insert([row(100, Date.UTC(2025, 1, 14)), row(101, Date.UTC(2031, 6, 1))]);
      const parts = await pool.query<{ child: string }>("SELECT inhrelid::regclass::text AS child FROM pg_inherits WHERE inhparent = 'usage_events'::regclass");
      expect(parts.rows.map((p) => p.child)).to.include.members(['usage_events_2025_02', 'usage_events_2031_07']);
    });

    it('a one-month report reads one partition (pruning) through the per-key and per-model indexes', async () => {
      await createUsageInsert(pool)([row(200, Date.UTC(2026, 9, 10)), row(201, Date.UTC(2026, 10, 10)), row(202, Date.UTC(2026, 11, 10))]);
      await pool.query('ANALYZE usage_events');
      for (const column of ['key_id', 'model']) {
        const plan = await pool.query<{ 'QUERY PLAN': unknown }>(
          `EXPLAIN (FORMAT JSON) SELECT sum(cost_usd) FROM usage_events WHERE started_at >= '2026-11-01T00:00:00Z' AND started_at < '2026-12-01T00:00:00Z' AND ${column} = 'x'`);
        const text = JSON.stringify(plan.rows[0]!['QUERY PLAN']);
        const scanned = [...new Set(text.match(/usage_events_\d{4}_\d{2}/g) ?? [])];
        expect(scanned, column).to.deep.equal(['usage_events_2026_11']);
      }
      const indexes = await pool.query<{ indexdef: string }>("SELECT indexdef FROM pg_indexes WHERE tablename = 'usage_events_2026_11'");
      const defs = indexes.rows.map((r) => r.indexdef).join('\n');
      expect(defs).to.match(/\(key_id, started_at\)/);
      expect(defs).to.match(/\(model, started_at\)/);
    });

    it('formats USD for the numeric column without exponent notation', () => {
      expect(formatUsd(1e-7)).to.equal('0.0000001');
      expect(formatUsd(0)).to.equal('0');
      expect(formatUsd(12.5)).to.equal('12.5');
    });
  });
});
