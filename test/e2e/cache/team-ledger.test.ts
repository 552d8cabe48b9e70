import { expect } from 'chai';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { TestGateway } from '../../helpers/gateway.js';
import { createMigratedDatabase, queryOnce, type TestDatabase } from '../../helpers/postgres.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startKitUpstreams, startScenarioGateway, type KitUpstreams } from '../../kit/routing-gateway.js';

const ADMIN = 'cache-team-admin-key-0123';
const CHAT = 'openai/gpt-4.1-mini';

async function admin(gw: TestGateway, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).to.equal(201);
  return (await res.json()) as Record<string, unknown>;
}

describe('e2e/cache: scope team and the ledger rows of hits (PostgreSQL)', function () {
  this.timeout(40_000);
  let kit: KitUpstreams;
  let db: TestDatabase;
  let gw: TestGateway;

  before(async () => {
    kit = await startKitUpstreams();
    db = await createMigratedDatabase();
    const dir = makeTempDir('gw-cache-ledger-');
    gw = await startScenarioGateway(kit, { cache: { enabled: true, scope: 'team' } }, {
      GATEWAY_LEDGER_URL: db.url, GATEWAY_LEDGER_JOURNAL: join(dir, 'journal.jsonl'), GATEWAY_ADMIN_KEYS: ADMIN,
    });
  });
  after(async () => {
    await gw?.close();
    await kit?.close();
    await db?.drop();
  });

  it('shares entries within a team, not with other keys; a hit is a ledger row with cache_hit and saved_usd', async () => {
    const team = await admin(gw, '/admin/teams', { name: 'cache-team' });
    const [k1, k2, outsider] = await Promise.all([
      admin(gw, '/admin/keys', { name: 'c1', team: team.id }),
      admin(gw, '/admin/keys', { name: 'c2', team: team.id }),
      admin(gw, '/admin/keys', { name: 'c3' }),
    ]);
    const client = (k: Record<string, unknown>) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: k.key as string, maxRetries: 0 });
    const request = { model: CHAT, messages: [{ role: 'user' as const, content: 'team question' }] };
    const first = await client(k1!).chat.completions.create(request).withResponse();
    expect(first.response.headers.get('x-gateway-cache')).to.equal('miss');
    const cost = Number(first.response.headers.get('x-gateway-cost'));
    const mate = await client(k2!).chat.completions.create(request).withResponse();
    expect(mate.response.headers.get('x-gateway-cache'), 'a team mate hits').to.equal('hit');
    const other = await client(outsider!).chat.completions.create(request).withResponse();
    expect(other.response.headers.get('x-gateway-cache'), 'another key outside the team misses').to.equal('miss');
    expect(kit.openai.requests).to.have.length(2);

    const hitId = mate.response.headers.get('x-request-id');
    const read = () => queryOnce<{ cache_hit: boolean; saved_usd: string; cost_usd: string; input_tokens: string; attempts: number }>(db.url,
      'SELECT cache_hit, saved_usd::text, cost_usd::text, input_tokens::text, attempts FROM usage_events WHERE request_id = $1', [hitId]);
    await waitFor(async () => (await read()).length > 0, 10_000, 'the hit\'s ledger row');
    const rows = await read();
    expect(rows[0]!.cache_hit).to.equal(true);
    expect(Number(rows[0]!.cost_usd)).to.equal(0);
    expect(Number(rows[0]!.saved_usd)).to.be.closeTo(cost, 1e-9);
    expect(Number(rows[0]!.input_tokens), 'the original usage').to.equal(first.data.usage!.prompt_tokens);
    expect(rows[0]!.attempts).to.equal(0);
    const miss = await queryOnce<{ cache_hit: boolean; saved_usd: string }>(db.url, 'SELECT cache_hit, saved_usd::text FROM usage_events WHERE request_id = $1', [first.response.headers.get('x-request-id')]);
    expect(miss[0]).to.deep.equal({ cache_hit: false, saved_usd: '0.000000000' });
  });

  it('stores both prompt-cache token counts and the prompt-cache saving of a call', async () => {
    const usage = { input_tokens: 10, cache_read_input_tokens: 2000, cache_creation_input_tokens: 500, output_tokens: 9 };
    kit.anthropic.enqueue({ transformData: (d) => (d.type === 'message' ? { ...d, usage } : d) });
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json', 'cache-control': 'no-store' },
      body: JSON.stringify({ model: 'anthropic/claude-haiku-5-5', messages: [{ role: 'user', content: 'cached prompt' }] }),
    });
    expect(res.status).to.equal(200);
    const id = res.headers.get('x-request-id');
    const read = () => queryOnce<{ cached_input_tokens: string; cache_write_tokens: string; prompt_cache_saved_usd: string; input_tokens: string }>(db.url,
      'SELECT cached_input_tokens::text, cache_write_tokens::text, prompt_cache_saved_usd::text, input_tokens::text FROM usage_events WHERE request_id = $1', [id]);
    await waitFor(async () => (await read()).length > 0, 10_000, 'the call\'s ledger row');
    const [row] = await read();
    expect(row).to.deep.include({ cached_input_tokens: '2000', cache_write_tokens: '500', input_tokens: '2510' });
    // Haiku 5.5: reads save 2000 x (0.0000001 - 0.00000001), writes cost 500 x (0.000000125 - 0.0000001) more.
    expect(Number(row!.prompt_cache_saved_usd)).to.be.closeTo(2000 * 9e-8 - 500 * 2.5e-8, 1e-12);
  });
});
