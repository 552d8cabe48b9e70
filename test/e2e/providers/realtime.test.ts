import { expect } from 'chai';
import { WebSocket } from 'ws';
import { createRealtimeSigner } from '../../../src/store/realtime-signer.js';
import { startProviderRig, type ProviderRig } from './setup.js';

const SECRET = 'realtime-test-secret';

/** Opens a client socket and collects what it receives until it closes. */
function connect(url: string): { socket: WebSocket; frames: Array<{ data: Buffer; binary: boolean }>; opened: Promise<void>; closed: Promise<{ code: number; reason: string }>; refused: Promise<number> } {
  const socket = new WebSocket(url);
  const frames: Array<{ data: Buffer; binary: boolean }> = [];
  socket.on('message', (data, binary) => frames.push({ data: data as Buffer, binary }));
  const opened = new Promise<void>((resolve) => socket.once('open', () => resolve()));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  const refused = new Promise<number>((resolve) => {
    socket.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.once('error', () => undefined);
  });
  return { socket, frames, opened, closed, refused };
}

async function waitFor(check: () => boolean, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('e2e/providers/realtime', () => {
  let rig: ProviderRig;
  before(async () => { rig = await startProviderRig({ GATEWAY_REALTIME_SECRET: SECRET }); });
  after(async () => { await rig.close(); });
  afterEach(() => expect(rig.violations(), 'requests a provider would have refused').to.deep.equal([]));

  async function createSession(maxDuration: number): Promise<Record<string, unknown>> {
    const res = await rig.post('/v1/realtime/sessions', { model: 'openai/gpt-realtime-2.1', max_duration_seconds: maxDuration, max_budget_usd: 1 });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    return res.json;
  }

  it('answers a signed gateway URL (same shape as the sandbox) without touching the provider', async () => {
    const before = rig.openai.realtime.length;
    const session = await createSession(30);
    expect(session).to.include({ object: 'realtime.session', model: 'openai/gpt-realtime-2.1', max_duration_seconds: 30, max_budget_usd: 1 });
    expect(String(session.url)).to.match(/^ws:\/\/127\.0\.0\.1:\d+\/v1\/realtime\/ws\?token=/);
    expect(rig.openai.realtime.length).to.equal(before);
  });

  it('relays frames both ways to the provider with its key and closes at max_duration_seconds', async () => {
    const session = await createSession(1);
    const started = Date.now();
    const client = connect(String(session.url));
    await client.opened;
    await waitFor(() => client.frames.length >= 1);
    const upstream = rig.openai.realtime.at(-1)!;
    expect(upstream.url).to.equal('/v1/realtime?model=gpt-realtime-2.1');
    expect(upstream.headers.authorization).to.equal('Bearer sk-test');
    expect(JSON.parse(client.frames[0]!.data.toString())).to.deep.include({ type: 'session.created' });

    client.socket.send(JSON.stringify({ type: 'response.create', response: { instructions: 'hi' } }));
    client.socket.send(Buffer.from([1, 2, 3, 250]), { binary: true });
    await waitFor(() => client.frames.length >= 3);
    expect(upstream.frames.map((f) => f.binary)).to.deep.equal([false, true]);
    expect(JSON.parse(upstream.frames[0]!.data.toString())).to.deep.equal({ type: 'response.create', response: { instructions: 'hi' } });
    expect(upstream.frames[1]!.data.equals(Buffer.from([1, 2, 3, 250]))).to.equal(true);
    expect(JSON.parse(client.frames[1]!.data.toString())).to.deep.equal({ type: 'fake.echo', received: { type: 'response.create', response: { instructions: 'hi' } } });
    expect(client.frames[2]!.binary).to.equal(true);
    expect(client.frames[2]!.data.equals(Buffer.from([1, 2, 3, 250]))).to.equal(true);

    const closed = await client.closed;
    expect(closed).to.deep.equal({ code: 1000, reason: 'max_duration_reached' });
    expect(Date.now() - started).to.be.within(800, 2500);
    await waitFor(() => upstream.socket!.readyState === WebSocket.CLOSED);
  });

  it('refuses a tampered token before any upstream connection', async () => {
    const session = await createSession(5);
    const before = rig.openai.realtime.length;
    const url = new URL(String(session.url));
    const token = url.searchParams.get('token')!;
    const bent = Buffer.from(token, 'base64url');
    bent[bent.length - 1] = bent[bent.length - 1]! ^ 0x40; // a changed byte of the sealed claims
    url.searchParams.set('token', bent.toString('base64url'));
    expect(await connect(url.toString()).refused).to.equal(401);
    expect(rig.openai.realtime.length).to.equal(before);
  });

  it('refuses an expired token before any upstream connection', async () => {
    const before = rig.openai.realtime.length;
    const signer = createRealtimeSigner(SECRET, rig.gw.url);
    const { url } = signer.sign({ session: 'rt_old', model: 'openai/gpt-realtime-2.1', owner: 'x', exp: Math.floor(Date.now() / 1000) - 5, max_duration_seconds: 10, max_budget_usd: 1 });
    expect(await connect(url).refused).to.equal(401);
    expect(rig.openai.realtime.length).to.equal(before);
    // The same signer with a future expiry is accepted: the refusal above is the expiry.
    const fresh = signer.sign({ session: 'rt_new', model: 'openai/gpt-realtime-2.1', owner: 'x', exp: Math.floor(Date.now() / 1000) + 60, max_duration_seconds: 1, max_budget_usd: 1 });
    const client = connect(fresh.url);
    await client.opened;
    client.socket.close();
  });

  it('closes the client with 1011 when the provider refuses the upstream handshake', async () => {
    const rig2 = await startProviderRig({ OPENAI_API_KEY: 'sk-wrong' });
    try {
      const res = await rig2.post('/v1/realtime/sessions', { model: 'openai/gpt-realtime', max_duration_seconds: 5, max_budget_usd: 1 });
      const client = connect(String(res.json.url));
      const closed = await client.closed;
      expect(closed.code).to.equal(1011);
      expect(closed.reason).to.equal('upstream_refused_401');
      expect(rig2.openai.realtime).to.have.length(1);
      expect(rig2.violations()).to.deep.equal(['openai: realtime handshake /v1/realtime?model=gpt-realtime refused (wrong key or no model)']);
    } finally {
      await rig2.close();
    }
  });

  it('still serves sandbox realtime sessions itself', async () => {
    const upstreamBefore = rig.openai.realtime.length;
    const res = await rig.post('/v1/realtime/sessions', { model: 'sandbox/realtime-1', max_duration_seconds: 1, max_budget_usd: 1 });
    const client = connect(String(res.json.url));
    await client.opened;
    await waitFor(() => client.frames.length >= 1);
    expect(JSON.parse(client.frames[0]!.data.toString()).type).to.equal('session.created');
    client.socket.close();
    expect(rig.openai.realtime.length).to.equal(upstreamBefore);
  });
});
