import { expect } from 'chai';
import WebSocket from 'ws';
import { createRealtimeSigner } from '../../../src/store/realtime-signer.js';
import type { TestGateway } from '../../helpers/gateway.js';
import { bootSandbox, postJson, type ErrorEnvelope } from './helpers.js';

const MODEL = 'sandbox/realtime-1';
// Fixed for this gateway so the test can sign a URL that is authentic but expired.
const SECRET = 'e2e-realtime-secret-0123456789abcdef';

interface SessionBody { id: string; object: string; model: string; url: string; expires_at: number; max_duration_seconds: number; max_budget_usd: number }

/** Opens a socket and collects what happens: messages in order, the close code and reason. */
function openSession(url: string): { ws: WebSocket; opened: Promise<void>; messages: unknown[]; next: () => Promise<unknown>; closed: Promise<{ code: number; reason: string; at: number }> } {
  const ws = new WebSocket(url);
  const messages: unknown[] = [];
  const waiters: Array<(m: unknown) => void> = [];
  ws.on('message', (data, isBinary) => {
    const value = isBinary ? Buffer.from(data as Buffer) : JSON.parse(String(data)) as unknown;
    const waiter = waiters.shift();
    if (waiter) waiter(value);
    else messages.push(value);
  });
  return {
    ws,
    opened: new Promise((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); }),
    messages,
    next: () => (messages.length > 0 ? Promise.resolve(messages.shift()) : new Promise((resolve) => waiters.push(resolve))),
    closed: new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString(), at: Date.now() }))),
  };
}

/** The HTTP status a refused upgrade answers with. */
function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.once('unexpected-response', (_req, res) => { resolve(res.statusCode ?? 0); res.resume(); ws.terminate(); });
    ws.once('open', () => { ws.close(); reject(new Error('the upgrade was accepted')); });
    ws.once('error', () => undefined);
  });
}

describe('e2e sandbox: realtime', () => {
  let gw: TestGateway;
  before(async () => { gw = await bootSandbox({ GATEWAY_REALTIME_SECRET: SECRET }); });
  after(() => gw.close());

  const createSession = (maxDuration: number) =>
    postJson<SessionBody>(gw, '/v1/realtime/sessions', { model: MODEL, max_duration_seconds: maxDuration, max_budget_usd: 0.5 });

  describe('POST /v1/realtime/sessions', () => {
    it('returns a signed ws URL of the gateway; the session echoes and closes 1000 at max_duration_seconds', async () => {
      const res = await createSession(1);
      expect(res.status).to.equal(200);
      expect(res.body.object).to.equal('realtime.session');
      expect(res.body.max_duration_seconds).to.equal(1);
      expect(res.body.max_budget_usd).to.equal(0.5);
      expect(res.body.expires_at).to.be.greaterThan(Date.now() / 1000);
      const url = new URL(res.body.url);
      expect(url.protocol).to.equal('ws:');
      expect(url.host).to.equal(new URL(gw.url).host);
      expect(url.searchParams.get('token')).to.be.a('string');

      const session = openSession(res.body.url);
      await session.opened;
      const openedAt = Date.now();
      const created = await session.next() as { type: string; session: { id: string; model: string } };
      expect(created.type).to.equal('session.created');
      expect(created.session.id).to.equal(res.body.id);
      expect(created.session.model).to.equal(MODEL);

      session.ws.send(JSON.stringify({ type: 'input_text', text: 'hello realtime' }));
      expect(await session.next()).to.deep.equal({ type: 'echo', data: { type: 'input_text', text: 'hello realtime' } });
      session.ws.send('plain words');
      expect(await session.next()).to.deep.equal({ type: 'echo', data: 'plain words' });
      const pcm = Buffer.from([1, 2, 3, 4, 250, 251]);
      session.ws.send(pcm, { binary: true });
      expect((await session.next() as Buffer).equals(pcm)).to.equal(true);

      const closed = await session.closed;
      expect(closed.code).to.equal(1000);
      expect(closed.reason).to.equal('max_duration_reached');
      expect(closed.at - openedAt).to.be.within(700, 3000);
    });

    it('refuses a tampered token with 401 on upgrade', async () => {
      const res = await createSession(5);
      const url = new URL(res.body.url);
      const token = url.searchParams.get('token')!;
      // The claims are sealed (AES-GCM): any changed byte, in the claims or the tag, is refused.
      const raw = Buffer.from(token, 'base64url');
      for (const at of [20, raw.length - 1]) {
        const bent = Buffer.from(raw);
        bent[at] = bent[at]! ^ 0x40;
        url.searchParams.set('token', bent.toString('base64url'));
        expect(await upgradeStatus(url.toString())).to.equal(401);
      }
    });

    it('refuses an expired token with 401 while a fresh one with the same secret opens', async () => {
      const signer = createRealtimeSigner(SECRET, gw.url);
      const claims = { session: 'rt_e2e', model: MODEL, owner: 'x', max_duration_seconds: 1, max_budget_usd: 1 };
      const expired = signer.sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 5 });
      expect(await upgradeStatus(expired.url)).to.equal(401);
      const fresh = openSession(signer.sign({ ...claims, exp: Math.floor(Date.now() / 1000) + 60 }).url);
      await fresh.opened;
      expect((await fresh.next() as { type: string }).type).to.equal('session.created');
      fresh.ws.close();
    });

    it('answers 400 when max_duration_seconds is above 3600', async () => {
      const res = await postJson<ErrorEnvelope>(gw, '/v1/realtime/sessions', { model: MODEL, max_duration_seconds: 3601, max_budget_usd: 1 });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.include('max_duration_seconds');
    });
  });
});
