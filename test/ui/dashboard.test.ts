import { expect } from 'chai';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { createTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { applyMigrations } from '../../src/ledger/migrations.js';
import { createPgPool } from '../../src/ledger/pg-pool.js';
import { createUsageInsert } from '../../src/ledger/usage-insert.js';
import type { UsageRow } from '../../src/ledger/usage-row.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ADMIN = 'dashboard-admin-key-0123';
const CLIENT = 'dashboard-client-key-0123';

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(1, 4).toString('latin1')).to.equal('PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

function pastRow(i: number, daysAgo: number, model: string, key: string, cost: string): UsageRow {
  const at = Date.now() - daysAgo * 86_400_000 - i * 1000;
  return {
    request_id: `req_seed_${daysAgo}_${i}_${model}`, started_at: new Date(at).toISOString(), key_id: key, key_name: key, team: 'web',
    model, requested_model: null, provider: model.split('/')[0]!, upstream: null, operation: 'chat.completions', route: 'chat-completions.yaml',
    input_tokens: 100 + i, output_tokens: 50 + i, cached_input_tokens: 0, reasoning_tokens: 0, tokens_estimated: false, cost_usd: cost,
    status: 200, error_code: null, latency_ms: 120, ttft_ms: 40, attempts: 1, streamed: false, cache_hit: false, saved_usd: '0', cache_write_tokens: 0, prompt_cache_saved_usd: '0',
  };
}

describe('dashboard /ui in headless Chromium', function () {
  this.timeout(90_000);
  let db: TestDatabase;
  let gw: TestGateway;
  let browser: Browser;

  before(async function () {
    expect(existsSync(CHROMIUM), `${CHROMIUM} (apt-get install chromium; .ci/run does it)`).to.equal(true);
    db = await createTestDatabase();
    const pool = createPgPool(db.url, () => undefined, 1);
    await applyMigrations(pool);
    // A week of history for two models, so the chart has days and colours to draw.
    const rows: UsageRow[] = [];
    for (let d = 1; d <= 7; d++) {
      rows.push(pastRow(0, d, 'sandbox/echo-1', 'team-key', (0.002 * d).toFixed(6)));
      rows.push(pastRow(1, d, 'sandbox/image-1', 'ops-key', '0.010000'));
    }
    await createUsageInsert(pool)(rows);
    await pool.end();
    const dir = makeTempDir('gw-ui-');
    gw = await startGateway({ env: { GATEWAY_LEDGER_URL: db.url, GATEWAY_LEDGER_JOURNAL: join(dir, 'j.jsonl'), GATEWAY_ADMIN_KEYS: ADMIN, GATEWAY_API_KEYS: CLIENT } });
    // Today's traffic goes through the gateway itself.
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${CLIENT}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sandbox/echo-1', messages: [{ role: 'user', content: `hello ${i}` }] }) });
      expect(r.status).to.equal(200);
    }
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await db?.drop();
  });

  it('serves the page and its assets as static files, and nothing outside ui/', async () => {
    const page = await fetch(`${gw.url}/ui`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.contain('text/html');
    expect(page.headers.get('content-security-policy')).to.contain("default-src 'self'");
    expect((await fetch(`${gw.url}/ui/app.js`)).headers.get('content-type')).to.contain('javascript');
    expect((await fetch(`${gw.url}/ui/..%2Fpackage.json`)).status).to.equal(404);
    expect((await fetch(`${gw.url}/ui/nope.js`)).status).to.equal(404);
  });

  it('logs in with an admin key, draws spend over time, lists models, upstreams and recent requests; the screenshot is not blank', async () => {
    // The ledger writes once a second: wait until today's requests are in it.
    for (let i = 0; i < 50; i++) {
      const r = await fetch(`${gw.url}/admin/requests?limit=5`, { headers: { authorization: `Bearer ${ADMIN}` } });
      if (((await r.json()) as { data: { key_id: string }[] }).data.some((x) => x.key_id === 'env-1')) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(`${gw.url}/ui`);
    expect(await page.textContent('#message')).to.contain('admin key');
    await page.fill('#admin-key', ADMIN);
    await page.click('#login button[type=submit]');
    await page.waitForSelector('#spend-chart rect.bar', { timeout: 15_000 });

    expect(await page.evaluate(() => sessionStorage.getItem('gateway-admin-key'))).to.equal(ADMIN);
    const bars = await page.locator('#spend-chart rect.bar').count();
    expect(bars).to.be.at.least(14);
    expect(await page.locator('.legend span').allTextContents()).to.include.members(['sandbox/echo-1', 'sandbox/image-1']);
    const models = await page.locator('#models tbody td:first-child').allTextContents();
    expect(models).to.include('sandbox/echo-1');
    const providers = await page.locator('#providers tbody tr').allTextContents();
    expect(providers.join(' ')).to.match(/sandbox\s*sandbox\s*enabled/);
    const recent = await page.locator('#requests tbody tr').count();
    expect(recent).to.be.at.least(3);
    expect(await page.locator('#requests tbody').textContent()).to.contain('env-1');
    expect(await page.locator('#totals tbody').textContent()).to.contain('sandbox/image-1');

    // Regroup by key: the chart is redrawn with the keys as series.
    await page.selectOption('#group-by', 'key');
    await page.waitForFunction(() => [...document.querySelectorAll('.legend span')].some((s) => s.textContent === 'ops-key'));

    const shot = await page.screenshot({ fullPage: false });
    writeFileSync(join(tmpdir(), 'gateway-dashboard.png'), shot);
    expect(pngSize(shot)).to.deep.equal({ width: 1280, height: 1000 });
    // Non-blank: count distinct colours of the chart area, decoded by the browser itself.
    const box = (await page.locator('#spend-chart').boundingBox())!;
    const colours = await page.evaluate(async ({ data, box }) => {
      const img = new Image();
      img.src = `data:image/png;base64,${data}`;
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const g = c.getContext('2d')!;
      g.drawImage(img, 0, 0);
      const px = g.getImageData(Math.floor(box.x), Math.floor(box.y), Math.floor(box.width), Math.floor(box.height)).data;
      const seen = new Set<number>();
      for (let i = 0; i < px.length; i += 4) seen.add((px[i]! << 16) | (px[i + 1]! << 8) | px[i + 2]!);
      return seen.size;
    }, { data: shot.toString('base64'), box });
    expect(colours, 'distinct colours in the chart').to.be.greaterThan(3);
    expect(pageErrors).to.deep.equal([]);
    await context.close();
  });

  it('refuses a client key with the API\'s message and keeps no key', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${gw.url}/ui`);
    await page.fill('#admin-key', CLIENT);
    await page.click('#login button[type=submit]');
    await page.waitForSelector('#message.error');
    expect(await page.textContent('#message')).to.contain('admin key');
    expect(await page.evaluate(() => sessionStorage.getItem('gateway-admin-key'))).to.equal(null);
    expect(await page.isHidden('#dashboard')).to.equal(true);
    await context.close();
  });
});
