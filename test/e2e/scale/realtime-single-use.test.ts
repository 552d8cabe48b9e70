import { createHash } from 'node:crypto';
import { expect } from 'chai';
import WebSocket from 'ws';
import { deletePrefix, SHARED_REDIS, uniquePrefix } from '../../store/support/redis.js';
import { freePort } from '../../helpers/free-port.js';
import { post } from '../budget/support/client.js';
import { spawnGateway, type GatewayProcess } from '../budget/support/process.js';
import { newKey, writeProject, type TestKey } from '../budget/support/project.js';

/** Connects; resolves with how the attempt ended: refused (HTTP status) or opened then closed (code, seconds open). */
function attempt(url: string): Promise<{ refused?: number; closeCode?: number; openSeconds?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    let openedAt = 0;
    ws.once('unexpected-response', (_req, res) => { resolve({ refused: res.statusCode }); res.resume(); ws.terminate(); });
    ws.once('open', () => { openedAt = Date.now(); });
    ws.once('close', (code) => { if (openedAt) resolve({ closeCode: code, openSeconds: (Date.now() - openedAt) / 1000 }); });
    ws.once('error', () => undefined);
  });
}

describe('e2e/scale: signed realtime URLs across two instances on one Redis (127.0.0.1:6379)', function () {
  this.timeout(60_000);
  const prefix = uniquePrefix('rt');
  const key: TestKey = { key: newKey('rt'), name: 'rt' };
  const gateways: GatewayProcess[] = [];

  before(async () => {
    const store = { url: `${SHARED_REDIS}?prefix=${encodeURIComponent(prefix)}`, on_error: 'closed' as const };
    const ports = [await freePort(), await freePort()];
    gateways.push(...await Promise.all(ports.map((port) => spawnGateway(writeProject({ keys: [key], store, port, realtimeSecret: 'shared-realtime-secret-0123456789' }), port, key.key, { LOG_LEVEL: 'warn' }))));
  });
  after(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await deletePrefix(SHARED_REDIS, prefix);
  });

  it('opens one session per URL, on whichever instance, for at most max_duration_seconds in all', async () => {
    const created = await post(`${gateways[0]!.url}/v1/realtime/sessions`, key.key, { model: 'sandbox/realtime-1', max_duration_seconds: 1, max_budget_usd: 0.5 });
    expect(created.status, created.text).to.equal(200);
    const signed = new URL(String(created.json.url));
    // No trace of the client key in the token: neither the key, nor its sha256 (hex or base64url).
    const token = signed.searchParams.get('token') ?? '';
    const keyHash = createHash('sha256').update(key.key).digest();
    for (const secret of [key.key, keyHash.toString('hex'), keyHash.toString('base64url')]) expect(token).to.not.include(secret);
    const on = (g: GatewayProcess) => `${g.url.replace(/^http/, 'ws')}${signed.pathname}${signed.search}`;
    // Used on instance B (signed on A: one shared secret)...
    const first = await attempt(on(gateways[1]!));
    // On failure, say how the attempt ended and what instance B logged (its refusal's cause).
    expect(first.closeCode, `${JSON.stringify(first)}\n${gateways[1]!.output()}`).to.equal(1000);
    expect(first.openSeconds).to.be.lessThan(2);
    // ...then refused everywhere, so the session cannot run past its duration by reconnecting.
    expect(await attempt(on(gateways[0]!))).to.deep.equal({ refused: 401 });
    expect(await attempt(on(gateways[1]!))).to.deep.equal({ refused: 401 });
  });

  it('lets exactly one of several concurrent connections with one URL through', async () => {
    const created = await post(`${gateways[1]!.url}/v1/realtime/sessions`, key.key, { model: 'sandbox/realtime-1', max_duration_seconds: 1, max_budget_usd: 0.5 });
    const signed = new URL(String(created.json.url));
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => attempt(`${gateways[i % 2]!.url.replace(/^http/, 'ws')}${signed.pathname}${signed.search}`)));
    expect(results.filter((r) => r.closeCode !== undefined)).to.have.length(1);
    expect(results.filter((r) => r.refused === 401)).to.have.length(5);
  });
});
