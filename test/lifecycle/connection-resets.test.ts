import { connect, type Socket } from 'node:net';
import { expect } from 'chai';
import { freePort } from '../helpers/free-port.js';
import { baseConfig, startServe, writeProject, type ServeProcess } from './project.js';

const KEY = 'test-key-lifecycle';
const UPGRADE_HEADERS = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

/**
 * Opens a raw TCP connection, writes `send`, waits for `until` (the first answer bytes, or
 * nothing), then resets the connection (RST, not FIN): the client that vanishes mid-request.
 * Resolves with what the gateway had answered by then.
 */
function resetAfter(port: number, send: string, until: 'connect' | 'written' | 'answer'): Promise<string> {
  return new Promise((resolve) => {
    let answered = '';
    const socket: Socket = connect(port, '127.0.0.1', () => {
      if (until === 'connect') return reset();
      socket.write(send, () => { if (until === 'written') reset(); });
    });
    const reset = () => { socket.resetAndDestroy(); resolve(answered); };
    socket.on('data', (d: Buffer) => {
      answered += d.toString('latin1');
      if (until === 'answer') reset();
    });
    socket.on('error', () => resolve(answered));
  });
}

/** The status line of an answer, e.g. `HTTP/1.1 404 Not Found`. */
const statusLine = (answer: string) => answer.split('\r\n')[0];

describe('lifecycle: connections reset at every stage never end the process', function () {
  this.timeout(30_000);
  let gw: ServeProcess;
  let port: number;

  before(async () => {
    port = await freePort();
    const models = `  - id: sandbox/realtime-1
    provider: sandbox
    endpoints: [/v1/realtime/sessions]
    pricing: { audio_second: "0.0001" }
`;
    gw = await startServe(writeProject({ 'gateway.yaml': baseConfig({ port, models }) }), port, { GATEWAY_API_KEYS: KEY });
  });
  after(async () => {
    gw.child.kill('SIGKILL');
    await gw.exited;
  });

  /** Asserts the process still runs and still serves. */
  async function expectAlive(): Promise<void> {
    await new Promise((r) => setTimeout(r, 100));
    expect(gw.child.exitCode, gw.output()).to.equal(null);
    const res = await fetch(`${gw.url}/healthz`);
    expect(res.status).to.equal(200);
  }

  const chat = (stream: boolean) => JSON.stringify({ model: 'sandbox/echo-1', stream, messages: [{ role: 'user', content: 'hello '.repeat(200) }] });

  it('refused upgrades (unknown path, API path, bogus realtime token), reset after the answer', async () => {
    for (const path of ['/nope', '/v1/responses', '/v1/realtime/ws?token=bogus']) {
      for (let i = 0; i < 3; i++) {
        const answer = await resetAfter(port, `GET ${path} HTTP/1.1\r\nHost: x\r\n${UPGRADE_HEADERS}\r\n`, 'answer');
        expect(statusLine(answer), path).to.match(/^HTTP\/1\.1 (404|401) /);
      }
    }
    await expectAlive();
  });

  it('upgrades reset before the answer, including one that carries a valid session token', async () => {
    for (const path of ['/nope', '/v1/realtime/ws?token=bogus']) {
      await resetAfter(port, `GET ${path} HTTP/1.1\r\nHost: x\r\n${UPGRADE_HEADERS}\r\n`, 'written');
    }
    const session = await fetch(`${gw.url}/v1/realtime/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/realtime-1', max_duration_seconds: 5, max_budget_usd: 0.1 }),
    });
    expect(session.status).to.equal(200);
    const wsUrl = new URL(((await session.json()) as { url: string }).url);
    // Reset while the gateway consumes the token's nonce in the store (the handler's async part).
    await resetAfter(port, `GET ${wsUrl.pathname}${wsUrl.search} HTTP/1.1\r\nHost: x\r\n${UPGRADE_HEADERS}\r\n`, 'written');
    await expectAlive();
  });

  it('plain requests: right after connect, mid request line, mid headers, mid body', async () => {
    const body = chat(false);
    await resetAfter(port, '', 'connect');
    await resetAfter(port, 'POST /v1/chat/comp', 'written');
    await resetAfter(port, `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n`, 'written');
    await resetAfter(port, `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 40)}`, 'written');
    await expectAlive();
  });

  it('answers in flight (plain and streamed) and idle keep-alive connections', async () => {
    for (const stream of [false, true]) {
      const body = chat(stream);
      const answer = await resetAfter(port, `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`, 'answer');
      expect(statusLine(answer)).to.equal('HTTP/1.1 200 OK');
    }
    // A keep-alive connection that served one request, reset while idle.
    const idle = await new Promise<string>((resolve) => {
      let answered = '';
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.on('data', (d: Buffer) => { answered += d.toString('latin1'); setTimeout(() => { socket.resetAndDestroy(); resolve(answered); }, 50); });
      socket.on('error', () => resolve(answered));
    });
    expect(statusLine(idle)).to.equal('HTTP/1.1 200 OK');
    await expectAlive();
  });
});
