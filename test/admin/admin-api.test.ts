import { expect } from 'chai';
import { join } from 'node:path';
import OpenAI from 'openai';
import { WebSocket } from 'ws';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { createMigratedDatabase, queryOnce, type TestDatabase } from '../helpers/postgres.js';
import { deletePrefix, SHARED_REDIS } from '../store/support/redis.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const ADMIN = 'admin-key-for-admin-tests';
const YAML_KEY = 'yaml-client-0123456789';

interface Answer { status: number; body: Record<string, unknown>; headers: Headers }

async function call(gw: { url: string }, method: string, path: string, key?: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${gw.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
}

/**
 * A fresh migrated database and two gateways on it (each with its own journal), keyed with
 * ADMIN and YAML_KEY; `more` adds environment from the database name.
 */
async function startTwoGateways(prefix: string, more: (dbName: string) => Record<string, string>): Promise<{ db: TestDatabase; a: TestGateway; b: TestGateway }> {
  const db = await createMigratedDatabase();
  const dir = makeTempDir(prefix);
  const env = (n: string) => ({ GATEWAY_LEDGER_URL: db.url, GATEWAY_LEDGER_JOURNAL: join(dir, `${n}.jsonl`), GATEWAY_ADMIN_KEYS: ADMIN, GATEWAY_API_KEYS: YAML_KEY, ...more(db.name) });
  const a = await startGateway({ env: env('a') });
  const b = await startGateway({ env: env('b') }).catch(async (e: unknown) => {
    await a.close();
    await db.drop();
    throw e;
  });
  return { db, a, b };
}

const chat = (gw: { url: string }, key: string, model = 'sandbox/echo-1') =>
  call(gw, 'POST', '/v1/chat/completions', key, { model, messages: [{ role: 'user', content: 'hello' }] });
const image = (gw: { url: string }, key: string) => call(gw, 'POST', '/v1/images/generations', key, { model: 'sandbox/image-1', prompt: 'a cat' });
const code = (a: Answer) => (a.body.error as { code?: string } | undefined)?.code;

describe('admin API: keys and teams at runtime (PostgreSQL)', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let a: TestGateway;
  let b: TestGateway;

  before(async () => {
    // Two instances on one database, as behind a load balancer.
    ({ db, a, b } = await startTwoGateways('gw-admin-', () => ({})));
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('guards /admin: no key 401, a client key 403, an unknown key 401', async () => {
    expect((await call(a, 'GET', '/admin/keys')).status).to.equal(401);
    const client = await call(a, 'GET', '/admin/keys', YAML_KEY);
    expect(client.status).to.equal(403);
    expect(code(client)).to.equal('admin_key_required');
    expect((await call(a, 'GET', '/admin/keys', 'not-a-key')).status).to.equal(401);
    expect((await call(a, 'GET', '/admin/keys', ADMIN)).status).to.equal(200);
  });

  it('creates a key (201, id and secret shown once) that calls models, lists only its models, and never shows the secret again', async () => {
    const created = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'alice', models: ['sandbox/echo-*'], rpm: 100 });
    expect(created.status).to.equal(201);
    expect(created.body.id).to.match(/^key_/);
    expect(created.body.key).to.match(/^gwk_/);
    const secret = created.body.key as string;
    // Both instances accept it through the official SDK.
    for (const gw of [a, b]) {
      const openai = new OpenAI({ apiKey: secret, baseURL: `${gw.url}/v1` });
      const r = await openai.chat.completions.create({ model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'hi' }] });
      expect(r.choices[0]!.message.content).to.contain('hi');
    }
    const refused = await image(a, secret);
    expect(refused.status).to.equal(403);
    expect(code(refused)).to.equal('model_not_allowed');
    const models = await new OpenAI({ apiKey: secret, baseURL: `${a.url}/v1` }).models.list();
    const ids = models.data.map((m) => m.id);
    expect(ids.length).to.be.greaterThan(0);
    for (const id of ids) expect(id).to.match(/^sandbox\/echo-/);
    const anonymous = (await call(a, 'GET', '/v1/models')).body.data as unknown[];
    expect(anonymous.length).to.be.greaterThan(ids.length);
    const got = await call(a, 'GET', `/admin/keys/${created.body.id as string}`, ADMIN);
    expect(got.status).to.equal(200);
    expect(got.body).to.not.have.property('key');
    expect(JSON.stringify(got.body)).to.not.contain(secret);
    const list = await call(a, 'GET', '/admin/keys', ADMIN);
    expect((list.body.data as { id: string }[]).map((k) => k.id)).to.include(created.body.id);
  });

  it('refuses a bad body with 400 validation_failed naming the field, an unknown key id with 404', async () => {
    const bad = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'x', rpm: 'lots' });
    expect(bad.status).to.equal(400);
    expect(code(bad)).to.equal('validation_failed');
    expect(JSON.stringify(bad.body)).to.contain('rpm');
    const extra = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'x', colour: 'red' });
    expect(extra.status).to.equal(400);
    const when = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'x', expires_at: 'tomorrow' });
    expect(when.status).to.equal(400);
    const missing = await call(a, 'GET', '/admin/keys/key_nope', ADMIN);
    expect(missing.status).to.equal(404);
    expect(code(missing)).to.equal('key_not_found');
    const noTeam = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'x', team: 'no-such-team' });
    expect(noTeam.status).to.equal(404);
    expect(code(noTeam)).to.equal('team_not_found');
  });

  it('PATCH changes an allowlist at once on every instance', async () => {
    const created = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'bob' });
    const secret = created.body.key as string;
    expect((await image(b, secret)).status).to.equal(200);
    const patched = await call(a, 'PATCH', `/admin/keys/${created.body.id as string}`, ADMIN, { models: ['sandbox/echo-*'] });
    expect(patched.status).to.equal(200);
    expect(patched.body.models).to.deep.equal(['sandbox/echo-*']);
    const after = await image(b, secret);
    expect(after.status).to.equal(403);
    expect(code(after)).to.equal('model_not_allowed');
  });

  it('stores, returns and enforces a key\'s providers globs (403 provider_not_allowed on model calls and pass-through routes), changed by PATCH on every instance', async () => {
    const created = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'openai-only', providers: ['openai*'] });
    expect(created.status).to.equal(201);
    expect(created.body.providers).to.deep.equal(['openai*']);
    const id = created.body.id as string;
    expect((await call(b, 'GET', `/admin/keys/${id}`, ADMIN)).body.providers).to.deep.equal(['openai*']);
    const secret = created.body.key as string;
    for (const gw of [a, b]) {
      const refused = await chat(gw, secret);
      expect(refused.status).to.equal(403);
      expect(code(refused)).to.equal('provider_not_allowed');
    }
    // A pass-through route to another provider (anthropic) is refused before anything else.
    const passthrough = await call(b, 'POST', '/passthrough/anthropic/v1/messages/count_tokens', secret, { model: 'claude', messages: [] });
    expect(passthrough.status).to.equal(403);
    expect((passthrough.body.error as { code?: string }).code).to.equal('provider_not_allowed');
    const patched = await call(a, 'PATCH', `/admin/keys/${id}`, ADMIN, { providers: ['sandbox'] });
    expect(patched.status).to.equal(200);
    expect(patched.body.providers).to.deep.equal(['sandbox']);
    expect((await chat(b, secret)).status).to.equal(200);
    const cleared = await call(a, 'PATCH', `/admin/keys/${id}`, ADMIN, { providers: null });
    expect(cleared.body.providers).to.equal(null);
    expect((await call(a, 'GET', '/admin/keys', ADMIN)).body.data).to.satisfy((keys: Array<{ id: string; providers: unknown }>) => keys.find((k) => k.id === id)?.providers === null);
    const bad = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'x', providers: 'openai' });
    expect(bad.status).to.equal(400);
    expect(code(bad)).to.equal('validation_failed');
  });

  it('DELETE revokes: the key is refused with 401 at once on every instance', async () => {
    const created = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'carol' });
    const secret = created.body.key as string;
    // Warm both instances' caches.
    expect((await chat(a, secret)).status).to.equal(200);
    expect((await chat(b, secret)).status).to.equal(200);
    const del = await call(a, 'DELETE', `/admin/keys/${created.body.id as string}`, ADMIN);
    expect(del.status).to.equal(200);
    expect(del.body.revoked_at).to.be.a('string');
    for (const gw of [a, b]) {
      const r = await chat(gw, secret);
      expect(r.status, gw.url).to.equal(401);
      expect(code(r)).to.equal('key_revoked');
    }
    const listed = await call(a, 'GET', '/admin/keys', ADMIN);
    expect((listed.body.data as { id: string }[]).map((k) => k.id)).to.not.include(created.body.id);
    const all = await call(a, 'GET', '/admin/keys?include_revoked=true', ADMIN);
    expect((all.body.data as { id: string }[]).map((k) => k.id)).to.include(created.body.id);
  });

  it('rotate: a new secret for the same id and the same spend; the old secret is refused at once', async () => {
    const created = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'dave', budget: { usd: 1, period: 'month' } });
    const id = created.body.id as string;
    const old = created.body.key as string;
    expect((await image(b, old)).status).to.equal(200);
    expect((await image(a, old)).status).to.equal(200);
    const before = await call(a, 'GET', `/admin/keys/${id}`, ADMIN);
    expect(before.body.spend_usd).to.be.greaterThan(0);
    const rotated = await call(a, 'POST', `/admin/keys/${id}/rotate`, ADMIN);
    expect(rotated.status).to.equal(200);
    expect(rotated.body.id).to.equal(id);
    expect(rotated.body.key).to.match(/^gwk_/).and.not.equal(old);
    expect(rotated.body.spend_usd).to.equal(before.body.spend_usd);
    for (const gw of [a, b]) expect((await chat(gw, old)).status).to.equal(401);
    expect((await image(b, rotated.body.key as string)).status).to.equal(200);
  });

  it('expires a key at expires_at (401 key_expired)', async () => {
    const soon = new Date(Date.now() + 1500).toISOString();
    const created = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'erin', expires_at: soon });
    const secret = created.body.key as string;
    expect((await chat(a, secret)).status).to.equal(200);
    await new Promise((r) => setTimeout(r, 1700));
    const r = await chat(a, secret);
    expect(r.status).to.equal(401);
    expect(code(r)).to.equal('key_expired');
  });

  it('a team budget holds across all the team\'s keys (402 once the team has spent it), with the key budgets still enforced', async () => {
    // sandbox/image-1 costs 0.01 USD a call: the team may make 3 calls in all.
    const team = await call(a, 'POST', '/admin/teams', ADMIN, { name: 'research', budget: { usd: 0.03, period: 'month' } });
    expect(team.status).to.equal(201);
    const dup = await call(a, 'POST', '/admin/teams', ADMIN, { name: 'research' });
    expect(dup.status).to.equal(409);
    const k1 = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'r1', team: 'research', budget: { usd: 0.015, period: 'month' } });
    const k2 = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'r2', team: team.body.id });
    expect(k1.body.team_id).to.equal(team.body.id);
    const s1 = k1.body.key as string;
    const s2 = k2.body.key as string;
    expect((await image(a, s1)).status).to.equal(200);
    const keyLimited = await image(a, s1);
    expect(keyLimited.status, 'key budget').to.equal(402);
    expect((keyLimited.body.error as { message: string }).message).to.contain("API key 'r1'");
    expect((await image(a, s2)).status).to.equal(200);
    expect((await image(a, s2)).status).to.equal(200);
    const teamLimited = await image(a, s2);
    expect(teamLimited.status, 'team budget').to.equal(402);
    expect(code(teamLimited)).to.equal('budget_exhausted');
    expect((teamLimited.body.error as { message: string }).message).to.contain("Team 'research'");
    const spent = await call(a, 'GET', `/admin/teams/${team.body.id as string}`, ADMIN);
    expect(spent.body.spend_usd).to.be.closeTo(0.03, 1e-9);
    const busy = await call(a, 'DELETE', `/admin/teams/${team.body.id as string}`, ADMIN);
    expect(busy.status).to.equal(409);
    expect(code(busy)).to.equal('team_has_keys');
    // Raising the team budget (by name) lets the team's keys spend again at once.
    const raised = await call(a, 'PATCH', '/admin/teams/research', ADMIN, { budget: { usd: 0.05, period: 'month' } });
    expect(raised.status).to.equal(200);
    expect(raised.body.budget).to.deep.equal({ usd: 0.05, period: 'month' });
    // (On the instance that counted the spend: with `store.url: memory` spend is per instance.)
    expect((await image(a, s2)).status).to.equal(200);
    const teams = await call(a, 'GET', '/admin/teams', ADMIN);
    expect((teams.body.data as { name: string }[]).map((t) => t.name)).to.include('research');
    const gone = await call(a, 'POST', '/admin/teams', ADMIN, { name: 'empty' });
    expect((await call(a, 'DELETE', `/admin/teams/${gone.body.id as string}`, ADMIN)).status).to.equal(200);
    expect((await call(a, 'GET', `/admin/teams/${gone.body.id as string}`, ADMIN)).status).to.equal(404);
  });

  it('realtime sessions of a managed key hold its budget, and a revoked key\'s signed URL opens no socket', async () => {
    const created = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'rt', budget: { usd: 0.001, period: 'month' } });
    const secret = created.body.key as string;
    // sandbox/realtime-1: 0.0001 USD a second, so 60 s (0.006) do not fit a 0.001 budget.
    const over = await call(a, 'POST', '/v1/realtime/sessions', secret, { model: 'sandbox/realtime-1', max_duration_seconds: 60, max_budget_usd: 1 });
    expect(over.status).to.equal(200);
    const closed = await new Promise<{ code: number; reason: string }>((resolve, reject) => {
      const ws = new WebSocket(String(over.body.url));
      ws.on('close', (c, reason) => resolve({ code: c, reason: reason.toString() }));
      ws.on('error', reject);
    });
    expect(closed).to.deep.equal({ code: 1008, reason: 'budget_exhausted' });
    const signed = await call(a, 'POST', '/v1/realtime/sessions', secret, { model: 'sandbox/realtime-1', max_duration_seconds: 5, max_budget_usd: 0.0005 });
    expect(signed.status).to.equal(200);
    await call(a, 'DELETE', `/admin/keys/${created.body.id as string}`, ADMIN);
    const refused = await new Promise<number>((resolve) => {
      const ws = new WebSocket(String(signed.body.url));
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    expect(refused).to.equal(401);
  });

  it('YAML/env keys keep working beside managed keys', async () => {
    expect((await chat(a, YAML_KEY)).status).to.equal(200);
  });

  it('writes an audit row for every change: who, what, before and after', async () => {
    const created = await call(a, 'POST', '/admin/keys', ADMIN, { name: 'audited', rpm: 10 });
    const id = created.body.id as string;
    await call(a, 'PATCH', `/admin/keys/${id}`, ADMIN, { rpm: 20 });
    expect((await call(a, 'POST', `/admin/keys/${id}/rotate`, ADMIN)).status).to.equal(200);
    await call(a, 'DELETE', `/admin/keys/${id}`, ADMIN);
    const rows = await queryOnce<{ actor: string; action: string; before: { rpm: number; key_hint: string; rotated_at: string | null } | null; after: { rpm: number; key_hint: string; rotated_at: string | null; revoked_at: string | null } | null }>(
      db.url, 'SELECT actor, action, before, after FROM gateway_audit WHERE target_id = $1 ORDER BY id', [id]);
    expect(rows.map((r) => r.action)).to.deep.equal(['key.create', 'key.update', 'key.rotate', 'key.revoke']);
    expect(rows.every((r) => r.actor === 'admin-env-1')).to.equal(true);
    expect(rows[0]!.before).to.equal(null);
    expect(rows[1]!.before!.rpm).to.equal(10);
    expect(rows[1]!.after!.rpm).to.equal(20);
    expect(rows[2]!.before!.rotated_at).to.equal(null);
    expect(rows[2]!.after!.rotated_at).to.be.a('string');
    expect(rows[2]!.after!.key_hint).to.not.equal(rows[2]!.before!.key_hint);
    expect(rows[3]!.after!.revoked_at).to.be.a('string');
    expect(JSON.stringify(rows)).to.not.match(/gwk_[A-Za-z0-9_-]{20}/);
    const api = await call(a, 'GET', '/admin/audit?limit=4', ADMIN);
    expect((api.body.data as { action: string }[]).map((r) => r.action)).to.deep.equal(['key.revoke', 'key.rotate', 'key.update', 'key.create']);
  });

  it('renaming a team onto another team name is 409 team_exists and audits nothing', async () => {
    const first = await call(a, 'POST', '/admin/teams', ADMIN, { name: 'rename-a' });
    const second = await call(a, 'POST', '/admin/teams', ADMIN, { name: 'rename-b' });
    const clash = await call(a, 'PATCH', `/admin/teams/${second.body.id as string}`, ADMIN, { name: 'rename-a' });
    expect(clash.status).to.equal(409);
    expect(code(clash)).to.equal('team_exists');
    const renamed = await call(a, 'PATCH', `/admin/teams/${second.body.id as string}`, ADMIN, { name: 'rename-c' });
    expect(renamed.status).to.equal(200);
    expect(renamed.body.name).to.equal('rename-c');
    const rows = await queryOnce<{ action: string }>(db.url, 'SELECT action FROM gateway_audit WHERE target_id = $1 ORDER BY id', [second.body.id]);
    expect(rows.map((r) => r.action)).to.deep.equal(['team.create', 'team.update']);
    expect(first.status).to.equal(201);
  });
});

describe('admin API without ledger.url', () => {
  let gw: TestGateway;
  before(async () => { gw = await startGateway({ env: { GATEWAY_ADMIN_KEYS: ADMIN, GATEWAY_API_KEYS: YAML_KEY } }); });
  after(() => gw?.close());

  it('answers 501 ledger_not_configured saying what to set', async () => {
    const r = await call(gw, 'GET', '/admin/keys', ADMIN);
    expect(r.status).to.equal(501);
    expect(code(r)).to.equal('ledger_not_configured');
    expect((r.body.error as { message: string }).message).to.contain('ledger.url');
    const u = await call(gw, 'GET', '/v1/usage', YAML_KEY);
    expect(u.status).to.equal(501);
  });

  it('still refuses callers without an admin key first (401 / 403)', async () => {
    expect((await call(gw, 'POST', '/admin/keys', undefined, { name: 'x' })).status).to.equal(401);
    expect((await call(gw, 'POST', '/admin/keys', YAML_KEY, { name: 'x' })).status).to.equal(403);
  });
});

describe('admin API: a team budget across instances sharing Redis', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let a: TestGateway;
  let b: TestGateway;

  before(async () => {
    ({ db, a, b } = await startTwoGateways('gw-admin-redis-', (name) => ({ GATEWAY_STORE_URL: `redis://127.0.0.1:6379/0?prefix=${name}:`, GATEWAY_REALTIME_SECRET: 'test-realtime-secret' })));
  });
  after(async () => {
    await a?.close();
    await b?.close();
    // Leave no accounts of this run in the shared Redis.
    if (db) await deletePrefix(SHARED_REDIS, `${db.name}:`);
    await db?.drop();
  });

  it('admits exactly what the team budget fits from keys on different instances, concurrently', async () => {
    const team = await call(a, 'POST', '/admin/teams', ADMIN, { name: 'shared', budget: { usd: 0.05, period: 'day' } });
    const k1 = (await call(a, 'POST', '/admin/keys', ADMIN, { name: 's1', team: 'shared' })).body.key as string;
    const k2 = (await call(b, 'POST', '/admin/keys', ADMIN, { name: 's2', team: team.body.id })).body.key as string;
    // 16 concurrent 0.01 USD images from two keys on two instances: the team pays for 5.
    const results = await Promise.all(Array.from({ length: 16 }, (_, i) => image(i % 2 ? a : b, i % 4 < 2 ? k1 : k2)));
    expect(results.filter((r) => r.status === 200)).to.have.length(5);
    const refused = results.filter((r) => r.status !== 200);
    expect(refused.every((r) => r.status === 402 && code(r) === 'budget_exhausted')).to.equal(true);
    const spent = await call(b, 'GET', `/admin/teams/${team.body.id as string}`, ADMIN);
    expect(spent.body.spend_usd).to.be.closeTo(0.05, 1e-9);
  });
});
