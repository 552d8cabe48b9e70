import { expect } from 'chai';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { runSandboxRealtimeSession, sandboxProvider } from '../../../src/providers/sandbox/index.js';
import type { RealtimeClaims } from '../../../src/providers/types.js';
import { createFakeCall, FakeRealtimeSigner } from './fakes.js';

const createSession = sandboxProvider.operations!['realtime.sessions']!;

describe('providers/sandbox/realtime', () => {
  describe('#createRealtimeSession', () => {
    it('signs a URL with the session claims and reports its limits', async () => {
      const signer = new FakeRealtimeSigner();
      const now = Math.floor(Date.now() / 1000);
      const result = await createSession(createFakeCall('realtime.sessions', { max_duration_seconds: 60, max_budget_usd: 0.5 }, { signer, model: 'sandbox/realtime-1' }));
      const body = (result as { body: Record<string, unknown> }).body;
      const claims = signer.signed[0]!;
      expect(claims).to.include({ model: 'sandbox/realtime-1', owner: 'owner-a', max_duration_seconds: 60, max_budget_usd: 0.5 });
      expect(claims.exp).to.be.within(now + 299, now + 301);
      expect(body).to.include({ id: claims.session, object: 'realtime.session', model: 'sandbox/realtime-1', expires_at: claims.exp, max_duration_seconds: 60, max_budget_usd: 0.5 });
      expect(body.id).to.match(/^rt_/);
      expect(body.url).to.match(/^ws:\/\/.*token=/);
    });
  });

  describe('#runSandboxRealtimeSession', () => {
    let server: WebSocketServer;
    let url: string;
    const claims: RealtimeClaims = { session: 'rt_test', model: 'sandbox/realtime-1', owner: 'o', exp: 0, max_duration_seconds: 0.6, max_budget_usd: 1 };

    before(async () => {
      server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
      server.on('connection', (socket) => runSandboxRealtimeSession(socket, claims));
      await new Promise<void>((resolve) => server.once('listening', () => resolve()));
      url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it('greets, echoes text and binary frames, and closes at max_duration_seconds', async () => {
      const client = new WebSocket(url);
      const received: Array<{ data: Buffer; binary: boolean }> = [];
      client.on('message', (data, binary) => received.push({ data: data as Buffer, binary }));
      const opened = Date.now();
      await new Promise((resolve) => client.once('open', resolve));
      client.send(JSON.stringify({ type: 'hello', n: 1 }));
      client.send('plain text');
      client.send(Buffer.from([1, 2, 3]), { binary: true });
      const [code, reason] = await new Promise<[number, string]>((resolve) => client.once('close', (c, r) => resolve([c, r.toString()])));
      const lasted = Date.now() - opened;

      expect(code).to.equal(1000);
      expect(reason).to.equal('max_duration_reached');
      expect(lasted).to.be.within(500, 1500);
      const created = JSON.parse(received[0]!.data.toString()) as { type: string; session: Record<string, unknown> };
      expect(created.type).to.equal('session.created');
      expect(created.session).to.include({ id: 'rt_test', model: 'sandbox/realtime-1', max_duration_seconds: 0.6 });
      expect(JSON.parse(received[1]!.data.toString())).to.deep.equal({ type: 'echo', data: { type: 'hello', n: 1 } });
      expect(JSON.parse(received[2]!.data.toString())).to.deep.equal({ type: 'echo', data: 'plain text' });
      expect(received[3]!.binary).to.equal(true);
      expect([...received[3]!.data]).to.deep.equal([1, 2, 3]);
    });

    it('clears its timer when the socket closes first', async () => {
      // A stand-in socket: records close() calls; the session must not close it after 'close'.
      const fake = Object.assign(new EventEmitter(), {
        OPEN: 1, readyState: 1, sent: [] as unknown[], closes: 0,
        send(data: unknown) { this.sent.push(data); },
        close() { this.closes++; },
      });
      runSandboxRealtimeSession(fake as unknown as WebSocket, { ...claims, max_duration_seconds: 0.2 });
      expect(fake.sent).to.have.length(1);
      fake.emit('close', 1001, Buffer.from(''));
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(fake.closes).to.equal(0);
    });
  });
});
