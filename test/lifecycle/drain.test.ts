import WebSocket from 'ws';
import { request as httpRequest, Agent, type IncomingMessage } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import OpenAI from 'openai';
import { startHeldChat, type HeldChat } from '../kit/held-chat.js';
import { baseConfig, startServe, writeProject, type ServeProcess } from './project.js';
import { freePort } from '../helpers/free-port.js';

const KEY = 'test-key-lifecycle';
const ask = [{ role: 'user' as const, content: 'hello' }];

/**
 * One WebSocket upgrade on the realtime path with a token no gateway signed: its status and
 * error code, or undefined when nothing listens yet. A ready gateway answers 401.
 */
function upgradeAttempt(port: number): Promise<{ status: number; code: string | undefined } | undefined> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/v1/realtime/ws?token=not-a-signed-token', headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } });
    req.on('error', () => resolve(undefined));
    req.on('upgrade', (res: IncomingMessage, socket) => { socket.destroy(); resolve({ status: res.statusCode ?? 0, code: undefined }); });
    req.on('response', (res: IncomingMessage) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => {
        let code: string | undefined;
        try { code = (JSON.parse(text) as { error?: { code?: string } }).error?.code; } catch { code = undefined; }
        resolve({ status: res.statusCode ?? 0, code });
      });
    });
    req.end();
  });
}

/** Opens a keep-alive connection, makes one request on it and leaves it idle; resolves when the server closes it. */
async function idleKeepAliveConnection(url: string): Promise<{ closed: Promise<void> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/healthz`, { agent }, (res) => {
      res.resume();
      res.on('end', () => {
        const socket = req.socket!;
        resolve({ closed: new Promise<void>((r) => socket.once('close', () => r())) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('graceful drain (gateway serve, SIGTERM)', () => {
  let upstream: HeldChat;
  let gw: ServeProcess | undefined;
  beforeEach(async () => { upstream = await startHeldChat('sk-held'); });
  afterEach(async () => {
    if (gw && gw.child.exitCode === null) gw.child.kill('SIGKILL');
    gw = undefined;
    await upstream.close();
    expect(upstream.upstream.violations, 'requests OpenAI would have refused').to.deep.equal([]);
  });

  it('turns /readyz 503 at once, keeps /healthz 200, refuses new requests and lets the open stream finish, then exits 0', async () => {
    const port = await freePort();
    const dir = writeProject({ 'gateway.yaml': baseConfig({ port, graceS: 30 }) });
    gw = await startServe(dir, port, { OPENAI_API_KEY: 'sk-held', OPENAI_BASE_URL: upstream.baseUrl });
    const idle = await idleKeepAliveConnection(gw.url);
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: 'openai/slow-1', stream: true, messages: ask });
    const chunks = stream[Symbol.asyncIterator]();
    let text = '';
    const first = await chunks.next();
    text += first.value?.choices[0]?.delta.content ?? '';
    await upstream.upstream.whenHolding(1);

    gw.child.kill('SIGTERM');
    await gw.waitFor('"msg":"draining"');

    const ready = await fetch(`${gw.url}/readyz`);
    expect(ready.status).to.equal(503);
    expect(await ready.json()).to.deep.include({ status: 'draining' });
    const health = await fetch(`${gw.url}/healthz`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.deep.equal({ status: 'ok' });

    const refused = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/echo-1', messages: ask }),
    });
    expect(refused.status).to.equal(503);
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(refused.headers.get('connection')).to.equal('close');
    const refusedBody = await refused.json() as { error: { code: string; type: string } };
    expect(refusedBody.error).to.include({ code: 'shutting_down', type: 'api_error' });

    // The Anthropic surface gets its own envelope.
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 });
    const messagesError = await anthropic.messages.create({ model: 'sandbox/echo-1', max_tokens: 16, messages: ask }).then(() => undefined, (e: unknown) => e);
    expect(messagesError).to.be.instanceOf(Anthropic.APIError);
    expect((messagesError as InstanceType<typeof Anthropic.APIError>).status).to.equal(503);
    expect((messagesError as InstanceType<typeof Anthropic.APIError>).error).to.deep.include({ type: 'error' });

    await idle.closed;
    expect(gw.child.exitCode).to.equal(null);

    upstream.release();
    for (let step = await chunks.next(); !step.done; step = await chunks.next()) text += step.value.choices[0]?.delta.content ?? '';
    expect(text).to.equal('first second');
    expect(await gw.exited).to.equal(0);
    expect(gw.output()).to.include('gateway stopped');
  });

  it('does not wait for an idle /v1/responses WebSocket: it is closed with 1001 and the process exits long before the grace period', async () => {
    const port = await freePort();
    const dir = writeProject({ 'gateway.yaml': baseConfig({ port, graceS: 30 }) });
    gw = await startServe(dir, port, { OPENAI_API_KEY: 'sk-held', OPENAI_BASE_URL: upstream.baseUrl });
    const ws = new WebSocket(`${gw.url.replace(/^http/, 'ws')}/v1/responses`, { headers: { authorization: `Bearer ${KEY}` } });
    ws.on('error', () => undefined);
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    await new Promise((resolve) => ws.once('open', resolve));
    const completed = new Promise<void>((resolve) => ws.on('message', (data) => { if ((JSON.parse(String(data)) as { type: string }).type === 'response.completed') resolve(); }));
    ws.send(JSON.stringify({ type: 'response.create', model: 'sandbox/echo-1', input: 'hi' }));
    await completed;
    const stopping = Date.now();
    gw.child.kill('SIGTERM');
    expect(await closed).to.equal(1001);
    expect(await gw.exited).to.equal(0);
    expect(Date.now() - stopping).to.be.below(10_000);
  });

  it('ends a stream still open when the grace period is over with an error event in its format, answers an unanswered call 503, then exits 0', async () => {
    await upstream.close();
    upstream = await startHeldChat('sk-held', { holdJson: true });
    const port = await freePort();
    const dir = writeProject({ 'gateway.yaml': baseConfig({ port, graceS: 1 }) });
    gw = await startServe(dir, port, { OPENAI_API_KEY: 'sk-held', OPENAI_BASE_URL: upstream.baseUrl });
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, maxRetries: 0 });
    const anthropic = new Anthropic({ baseURL: gw.url, apiKey: KEY, maxRetries: 0 });
    const chat = await openai.chat.completions.create({ model: 'openai/slow-1', stream: true, messages: ask });
    const messages = anthropic.messages.stream({ model: 'openai/slow-1', max_tokens: 64, messages: ask });
    const chatText: string[] = [];
    const chatDone = (async () => { for await (const c of chat) chatText.push(c.choices[0]?.delta.content ?? ''); })().then(() => undefined, (e: unknown) => e);
    const messagesText: string[] = [];
    messages.on('text', (t) => messagesText.push(t));
    const messagesDone = messages.done().then(() => undefined, (e: unknown) => e);
    const plain = fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'openai/slow-1', messages: ask }),
    });
    await upstream.upstream.whenHolding(3);

    gw.child.kill('SIGTERM');
    const chatError = await chatDone;
    const messagesError = await messagesDone;
    expect(chatError, 'the chat stream must end with an error, not look finished').to.be.instanceOf(OpenAI.APIError);
    expect(String((chatError as Error).message)).to.match(/shutting down/);
    expect(chatText.join('')).to.equal('first ');
    expect(messagesError, 'the messages stream must end with an error event').to.be.instanceOf(Anthropic.APIError);
    expect(String((messagesError as Error).message)).to.match(/shutting down/);
    expect(messagesText.join('')).to.equal('first ');
    const unanswered = await plain;
    expect(unanswered.status).to.equal(503);
    expect(((await unanswered.json()) as { error: { code: string } }).error.code).to.equal('shutting_down');
    expect(await gw.exited).to.equal(0);
    expect(gw.output()).to.include('grace period over');
  });
});

describe('readiness while starting (gateway serve)', () => {
  let gw: ServeProcess | undefined;
  afterEach(() => { if (gw && gw.child.exitCode === null) gw.child.kill('SIGKILL'); gw = undefined; });

  it('answers /readyz 503 starting and API requests 503 until the store is up, /healthz 200 throughout, then ready', async () => {
    const port = await freePort();
    // A Redis that refuses connections: the gateway waits for it (up to its connect wait) before serving.
    const dir = writeProject({ 'gateway.yaml': baseConfig({ port, extra: 'store:\n  url: redis://127.0.0.1:1\n  on_error: open\nrealtime:\n  secret: test-realtime-secret\n' }) });
    gw = await startServe(dir, port, {}, false);
    let first: Response | undefined;
    while (!first) {
      first = await fetch(`${gw.url}/readyz`).catch(() => undefined);
      if (!first) await new Promise((r) => setTimeout(r, 20));
    }
    expect(first.status).to.equal(503);
    expect(await first.json()).to.deep.equal({ status: 'starting' });
    const health = await fetch(`${gw.url}/healthz`);
    expect(health.status).to.equal(200);
    const early = await fetch(`${gw.url}/v1/models`);
    expect(early.status).to.equal(503);
    expect(early.headers.get('retry-after')).to.equal('1');
    expect(((await early.json()) as { error: { code: string } }).error.code).to.equal('starting');
    let ready = 503;
    while (ready !== 200) {
      await new Promise((r) => setTimeout(r, 100));
      ready = (await fetch(`${gw.url}/readyz`)).status;
    }
    const after = await fetch(`${gw.url}/readyz`);
    // Ready, with the fleet fields of issue 12.6 (the store answers now).
    expect(await after.json()).to.deep.include({ status: 'ready' });
  });

  it('goes from a closed port straight to ready when it has nothing to wait for (memory store): no 503 starting for a poller', async () => {
    const port = await freePort();
    gw = await startServe(writeProject({ 'gateway.yaml': baseConfig({ port }) }), port, {}, false);
    const seen = new Set<number>();
    for (;;) {
      const status = await fetch(`${gw.url}/v1/models`).then((r) => r.status, () => 0);
      if (status !== 0) seen.add(status);
      if (status === 200) break;
      if (gw.child.exitCode !== null) throw new Error(gw.output());
    }
    expect([...seen]).to.deep.equal([200]);
  });

  it('exits 1 with the listen error when its port is taken, closing the store it opened (Redis)', async () => {
    const blocker = createNetServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const dir = writeProject({ 'gateway.yaml': baseConfig({ port, extra: 'store:\n  url: redis://127.0.0.1:6379\n  on_error: open\nrealtime:\n  secret: test-realtime-secret\n' }) });
      gw = await startServe(dir, port, {}, false);
      // An open Redis connection left behind would keep the process alive: it must exit.
      const code = await Promise.race([gw.exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
      expect(code).to.equal(1);
      expect(gw.output()).to.include('EADDRINUSE');
    } finally {
      blocker.close();
    }
  });

  it('refuses realtime upgrades as starting, never as shutting down, until the first one is checked like any (warm start included)', async () => {
    const port = await freePort();
    // A Redis that refuses connections: the gateway listens after 250 ms and answers `starting`
    // until its connect wait is over; the warm start comes before ready too.
    const dir = writeProject({ 'gateway.yaml': baseConfig({ port, extra: 'store:\n  url: redis://127.0.0.1:1\n  on_error: open\nrealtime:\n  secret: test-realtime-secret\n' }) });
    gw = await startServe(dir, port, {}, false);
    const answers: Array<{ status: number; code: string | undefined }> = [];
    const deadline = Date.now() + 20_000;
    for (;;) {
      const answer = await upgradeAttempt(port);
      if (answer) answers.push(answer);
      if (answer?.status === 401 || Date.now() > deadline) break;
    }
    expect(answers.at(-1), 'a ready gateway checks the token').to.deep.equal({ status: 401, code: 'invalid_session_token' });
    // Every answer before that one came from the starting gateway, which says so.
    expect(answers.length, 'upgrades answered while starting').to.be.greaterThan(1);
    for (const early of answers.slice(0, -1)) expect(early).to.deep.equal({ status: 503, code: 'starting' });
  });
});
