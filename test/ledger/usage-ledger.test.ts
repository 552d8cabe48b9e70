import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { readMigrations } from '../../src/ledger/migrations.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { createMigratedDatabase, queryOnce, type TestDatabase } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);
const ADMIN = 'admin-key-for-ledger-tests';
const CLIENT_A = 'client-a-0123456789';
const CLIENT_B = 'client-b-0123456789';

function chat(gw: { url: string }, key: string, content: string): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sandbox/echo-1', messages: [{ role: 'user', content }] }),
  });
}

async function getJson(url: string, key?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('ledger: usage rows in PostgreSQL', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let dir: string;

  before(async () => {
    db = await createMigratedDatabase();
    dir = makeTempDir('gw-ledger-');
  });
  after(async () => { await db?.drop(); });

  const envFor = (url: string, journal: string) => ({
    GATEWAY_LEDGER_URL: url,
    GATEWAY_LEDGER_JOURNAL: journal,
    GATEWAY_ADMIN_KEYS: ADMIN,
    GATEWAY_API_KEYS: `${CLIENT_A},${CLIENT_B}`,
  });

  describe('recording and reporting', () => {
    let gw: TestGateway;
    before(async () => {
      await queryOnce(db.url, 'TRUNCATE usage_events');
      gw = await startGateway({ env: envFor(db.url, join(dir, 'report.jsonl')) });
    });
    after(() => gw?.close());

    it('writes one row per billed request (streams included) with tokens, cost as numeric, status and latency; flushed on shutdown', async () => {
      const openai = new OpenAI({ apiKey: CLIENT_A, baseURL: `${gw.url}/v1` });
      const done = await openai.chat.completions.create({ model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'count these five words' }] });
      const stream = await openai.chat.completions.create({ model: 'sandbox/echo-1', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'stream me' }] });
      for await (const _ of stream) { /* drain */ }
      expect((await chat(gw, CLIENT_B, 'hello from b')).status).to.equal(200);
      // Discovery is not billed: no row.
      expect((await fetch(`${gw.url}/v1/models`)).status).to.equal(200);
      await gw.close();
      gw = await startGateway({ env: envFor(db.url, join(dir, 'report.jsonl')) });
      const rows = await queryOnce<Record<string, unknown>>(db.url, 'SELECT *, cost_usd::text AS cost_text, pg_typeof(cost_usd)::text AS cost_type FROM usage_events ORDER BY started_at');
      expect(rows).to.have.length(3);
      const [first, streamed, third] = rows;
      expect(first!.key_id).to.equal('env-1');
      expect(first!.model).to.equal('sandbox/echo-1');
      expect(first!.provider).to.equal('sandbox');
      expect(first!.operation).to.equal('chat.completions');
      expect(Number(first!.input_tokens)).to.equal(done.usage!.prompt_tokens);
      expect(Number(first!.output_tokens)).to.equal(done.usage!.completion_tokens);
      expect(first!.cost_type).to.equal('numeric');
      expect(Number(first!.cost_text)).to.be.greaterThan(0);
      expect(first!.status).to.equal(200);
      expect(first!.latency_ms).to.be.a('number');
      expect(streamed!.streamed).to.equal(true);
      expect(Number(streamed!.output_tokens)).to.be.greaterThan(0);
      expect(third!.key_id).to.equal('env-2');
      const partitions = await queryOnce<{ child: string }>(db.url, "SELECT inhrelid::regclass::text AS child FROM pg_inherits WHERE inhparent = 'usage_events'::regclass");
      expect(partitions.map((p) => p.child)).to.include(`usage_events_${new Date().toISOString().slice(0, 7).replace('-', '_')}`);
    });

    it('GET /v1/usage: an admin key sees every key, a client key only its own, grouped as asked', async () => {
      const from = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const to = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const all = await getJson(`${gw.url}/v1/usage?from=${from}&to=${to}&group_by=key`, ADMIN);
      expect(all.status).to.equal(200);
      const data = all.body.data as Record<string, unknown>[];
      expect(data.map((r) => r.group).sort()).to.deep.equal(['env-1', 'env-2']);
      expect(data.find((r) => r.group === 'env-1')).to.include({ requests: 2 });
      for (const r of data) expect(Object.keys(r).sort()).to.deep.equal(['cost_usd', 'group', 'input_tokens', 'output_tokens', 'requests']);
      const own = await getJson(`${gw.url}/v1/usage?from=${from}&to=${to}&group_by=key`, CLIENT_B);
      expect((own.body.data as Record<string, unknown>[]).map((r) => r.group)).to.deep.equal(['env-2']);
      const byModel = await getJson(`${gw.url}/v1/usage?from=${from}&to=${to}&group_by=model`, ADMIN);
      expect(byModel.body.data).to.have.length(1);
      expect((byModel.body.data as Record<string, unknown>[])[0]).to.include({ group: 'sandbox/echo-1', requests: 3 });
      const byDay = await getJson(`${gw.url}/v1/usage?from=${from}&to=${to}&group_by=day`, ADMIN);
      expect((byDay.body.data as Record<string, unknown>[])[0]!.group).to.equal(new Date().toISOString().slice(0, 10));
    });

    it('GET /v1/usage refuses bad parameters (400 naming them) and anonymous callers (401)', async () => {
      const bad = await getJson(`${gw.url}/v1/usage?from=yesterday`, ADMIN);
      expect(bad.status).to.equal(400);
      expect(bad.body.error).to.include({ code: 'invalid_parameter' });
      expect(String((bad.body.error as { message: string }).message)).to.contain("'from'");
      const group = await getJson(`${gw.url}/v1/usage?group_by=colour`, ADMIN);
      expect(group.status).to.equal(400);
      expect((await getJson(`${gw.url}/v1/usage`)).status).to.equal(401);
    });

    it('gateway usage prints the same report as a table, CSV and JSON', async () => {
      const cli = resolve(process.cwd(), 'dist/src/cli/main.js');
      const env = { ...process.env, ...envFor(db.url, join(dir, 'cli.jsonl')) };
      const from = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const to = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      const json = await run('node', [cli, 'usage', '--from', from, '--to', to, '--by', 'key', '--format', 'json'], { env });
      const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
      expect(rows.map((r) => r.group).sort()).to.deep.equal(['env-1', 'env-2']);
      const csv = await run('node', [cli, 'usage', '--from', from, '--to', to, '--by', 'provider', '--format', 'csv'], { env });
      const lines = csv.stdout.trim().split(/\r?\n/);
      expect(lines[0]).to.equal('group,requests,input_tokens,output_tokens,cost_usd');
      expect(lines[1]).to.match(/^sandbox,3,\d+,\d+,0\.\d{6}$/);
      const table = await run('node', [cli, 'usage', '--from', from, '--to', to, '--by', 'model'], { env });
      expect(table.stdout).to.match(/^GROUP\s+REQUESTS\s+INPUT_TOKENS\s+OUTPUT_TOKENS\s+COST_USD$/m);
      expect(table.stdout).to.match(/^sandbox\/echo-1\s+3\s/m);
      expect(table.stdout).to.match(/^TOTAL\s+3\s/m);
      const wrong = await run('node', [cli, 'usage', '--by', 'colour'], { env }).catch((e: { code: number; stderr: string }) => e);
      expect((wrong as { code: number }).code).to.equal(2);
      expect((wrong as { stderr: string }).stderr).to.contain('--by must be one of key, team, model, provider, day');
    });

    it('gateway migrate is idempotent and records its versions', async () => {
      const cli = resolve(process.cwd(), 'dist/src/cli/main.js');
      const out = await run('node', [cli, 'migrate'], { env: { ...process.env, ...envFor(db.url, join(dir, 'cli.jsonl')) } });
      expect(out.stdout).to.contain('up to date');
      const versions = await queryOnce<{ version: number }>(db.url, 'SELECT version FROM gateway_migrations ORDER BY version');
      expect(versions.map((v) => v.version)).to.deep.equal(readMigrations().map((m) => m.version));
      expect(versions.length).to.be.at.least(6);
    });
  });

  describe('database outage', () => {
    let proxy: TcpProxy;
    before(async () => {
      await queryOnce(db.url, 'TRUNCATE usage_events');
      const target = new URL(db.url);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    });
    after(() => proxy?.close());

    const proxied = () => {
      const u = new URL(db.url);
      u.port = String(proxy.port);
      return u.toString();
    };

    it('keeps every row through a database outage mid-load: complete and without duplicates once it returns', async () => {
      const journal = join(dir, 'outage.jsonl');
      const gw = await startGateway({ env: envFor(proxied(), journal) });
      const ids: string[] = [];
      const send = async (n: number) => {
        for (let i = 0; i < n; i += 10) {
          const batch = await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, j) => chat(gw, CLIENT_A, `message ${i + j}`)));
          for (const r of batch) {
            expect(r.status).to.equal(200);
            ids.push(r.headers.get('x-request-id')!);
            await r.arrayBuffer();
          }
        }
      };
      await send(60);
      // The database goes away mid-load: every connection is cut, new ones are refused.
      await proxy.stop();
      await send(80);
      await new Promise((r) => setTimeout(r, 1500));
      expect(readFileSync(journal, 'utf8').trim().split('\n').length, 'rows held in the journal').to.be.greaterThan(0);
      await proxy.start();
      await send(60);
      const expected = new Set(ids);
      expect(expected.size).to.equal(200);
      const count = await waitFor('the ledger to catch up', async () => {
        const [r] = await queryOnce<{ n: string; distinct_ids: string }>(db.url, 'SELECT count(*) AS n, count(DISTINCT request_id) AS distinct_ids FROM usage_events');
        return Number(r!.n) >= 200 ? r : undefined;
      });
      await gw.close();
      const rows = await queryOnce<{ request_id: string }>(db.url, 'SELECT request_id FROM usage_events');
      expect(Number(count.n)).to.equal(200);
      expect(Number(count.distinct_ids)).to.equal(200);
      expect(new Set(rows.map((r) => r.request_id))).to.deep.equal(expected);
      expect(readFileSync(journal, 'utf8'), 'journal emptied after replay').to.equal('');
    });

    it('keeps rows written while the database was down across a restart and replays them on the next start', async () => {
      await queryOnce(db.url, 'TRUNCATE usage_events');
      const journal = join(dir, 'restart.jsonl');
      await proxy.stop();
      const gw1 = await startGateway({ env: envFor(proxied(), journal) });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await chat(gw1, CLIENT_B, `offline ${i}`);
        expect(r.status).to.equal(200);
        ids.push(r.headers.get('x-request-id')!);
      }
      await gw1.close();
      expect(existsSync(journal)).to.equal(true);
      expect(readFileSync(journal, 'utf8').trim().split('\n')).to.have.length(5);
      await proxy.start();
      const gw2 = await startGateway({ env: envFor(proxied(), journal) });
      await gw2.close();
      const rows = await queryOnce<{ request_id: string }>(db.url, 'SELECT request_id FROM usage_events ORDER BY started_at');
      expect(rows.map((r) => r.request_id)).to.deep.equal(ids);
      expect(readFileSync(journal, 'utf8')).to.equal('');
    });

    it('terminated backends (pg_terminate_backend) cost no rows and double none', async () => {
      await queryOnce(db.url, 'TRUNCATE usage_events');
      const gw = await startGateway({ env: envFor(db.url, join(dir, 'terminate.jsonl')) });
      const ids = new Set<string>();
      for (let round = 0; round < 4; round++) {
        const batch = await Promise.all(Array.from({ length: 10 }, (_, j) => chat(gw, CLIENT_A, `round ${round} ${j}`)));
        for (const r of batch) ids.add(r.headers.get('x-request-id')!);
        await queryOnce(db.url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'model-gateway%'");
      }
      await gw.close();
      const [r] = await queryOnce<{ n: string; d: string }>(db.url, 'SELECT count(*) AS n, count(DISTINCT request_id) AS d FROM usage_events');
      expect(Number(r!.n)).to.equal(40);
      expect(Number(r!.d)).to.equal(40);
      const stored = await queryOnce<{ request_id: string }>(db.url, 'SELECT request_id FROM usage_events');
      expect(new Set(stored.map((s) => s.request_id))).to.deep.equal(ids);
    });
  });
});
