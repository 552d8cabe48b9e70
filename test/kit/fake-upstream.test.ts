/**
 * The kit's server itself: handler dialects get parsed bodies (JSON, multipart) only after the
 * scripted fault, their replies are written (JSON, bytes, chunks with stream faults), WebSocket
 * upgrades go to the first handler that takes them, and built-in dialects can be restricted.
 */
import { expect } from 'chai';
import { connect } from 'node:net';
import { startKitUpstream, type KitUpstream } from './fake-upstream.js';
import type { HandlerDialect, HandlerRequest } from './handler.js';

const seen: HandlerRequest[] = [];
const echo: HandlerDialect = {
  name: 'echo',
  match: (method, url) => method === 'POST' && url.pathname.startsWith('/echo/'),
  handle: (req, violations) => {
    seen.push(req);
    if (req.path === '/echo/refuse') {
      violations.push('echo: refused');
      return { status: 400, json: { error: 'refused' } };
    }
    if (req.path === '/echo/chunks') return { headers: { 'content-type': 'text/plain' }, chunks: ['a', 'b', 'c', 'd'].map((s) => Buffer.from(s)) };
    if (req.path === '/echo/bytes') return { headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from([1, 2, 3]) };
    return { json: { json: req.json ?? null, fields: req.form?.fields ?? null, files: (req.form?.files ?? []).map((f) => ({ field: f.field, filename: f.filename, text: f.bytes.toString() })) } };
  },
  errorBody: (status, message) => ({ echoError: { status, message } }),
  upgrade: (req, socket) => {
    if (req.url !== '/echo/ws') return false;
    socket.end('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n');
    return true;
  },
};

/** Sends a raw upgrade request and returns the first bytes the server answers ('' when it closes). */
function upgrade(url: string, path: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n`);
    });
    let got = '';
    socket.on('data', (b) => { got += b.toString(); });
    socket.on('close', () => resolve(got));
    socket.on('error', () => undefined);
  });
}

describe('kit: the fake upstream server', () => {
  let up: KitUpstream;
  before(async () => { up = await startKitUpstream('kit-test', 'k-1', { handlers: [echo], dialects: ['openai-chat'] }); });
  after(async () => { await up.close(); });
  beforeEach(() => { up.reset(); seen.length = 0; });

  it('hands a handler the parsed JSON body and records the request', async () => {
    const res = await fetch(`${up.url}/echo/json?x=1`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: [1, 2] }) });
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ json: { a: [1, 2] }, fields: null, files: [] });
    expect(seen[0]!.query.get('x')).to.equal('1');
    expect(up.last()).to.include({ dialect: 'echo', method: 'POST', path: '/echo/json' });
    expect(up.last().body).to.deep.equal({ a: [1, 2] });
    expect(up.violations).to.deep.equal([]);
  });

  it('parses multipart/form-data with a real parser (fields and files in order)', async () => {
    const form = new FormData();
    form.append('model', 'm-1');
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'a.txt');
    const res = await fetch(`${up.url}/echo/form`, { method: 'POST', body: form });
    expect(await res.json()).to.deep.equal({ json: null, fields: { model: ['m-1'] }, files: [{ field: 'file', filename: 'a.txt', text: 'hello' }] });
    expect(up.last().form!.files[0]!.mimetype).to.equal('text/plain');
  });

  it('applies an error fault before handle, with the handler error body and Retry-After', async () => {
    up.enqueue({ status: 429, message: 'slow down', retryAfter: '3' });
    const res = await fetch(`${up.url}/echo/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).to.equal(429);
    expect(res.headers.get('retry-after')).to.equal('3');
    expect(await res.json()).to.deep.equal({ echoError: { status: 429, message: 'slow down' } });
    expect(seen, 'handle not called').to.have.length(0);
    expect(up.last().fault.status).to.equal(429);
  });

  it('resets the connection on a reset fault and records a hang as aborted when the client leaves', async () => {
    up.enqueue({ reset: true }, { hang: true });
    const reset = await fetch(`${up.url}/echo/json`, { method: 'POST', body: '{}' }).then(() => 'answered', (e: Error) => e.name);
    expect(reset).to.equal('TypeError');
    const abort = new AbortController();
    const hung = fetch(`${up.url}/echo/json`, { method: 'POST', body: '{}', signal: abort.signal }).catch((e: Error) => e.name);
    await new Promise((r) => setTimeout(r, 100));
    abort.abort();
    expect(await hung).to.equal('AbortError');
    await up.last().abortedSignal;
    expect(up.last().aborted).to.equal(true);
    expect(seen).to.have.length(0);
  });

  it('writes chunks one by one, and a chunk reply obeys stream faults', async () => {
    const full = await fetch(`${up.url}/echo/chunks`, { method: 'POST', body: '' });
    expect(await full.text()).to.equal('abcd');
    up.enqueue({ cutAfterEvents: 2 });
    const cut = await fetch(`${up.url}/echo/chunks`, { method: 'POST', body: '' });
    const text = await cut.text().catch((e: Error) => `failed:${e.name}`);
    expect(text).to.not.equal('abcd');
    const bytes = await fetch(`${up.url}/echo/bytes`, { method: 'POST', body: '' });
    expect([...new Uint8Array(await bytes.arrayBuffer())]).to.deep.equal([1, 2, 3]);
  });

  it('records what a handler refused as a violation', async () => {
    const res = await fetch(`${up.url}/echo/refuse`, { method: 'POST', body: '' });
    expect(res.status).to.equal(400);
    expect(up.violations).to.deep.equal(['echo: refused']);
  });

  it('holds an answer until the gate opens, counting it as holding', async () => {
    let open: () => void = () => undefined;
    up.enqueue({ holdUntil: new Promise<void>((r) => (open = r)) });
    const answer = fetch(`${up.url}/echo/json`, { method: 'POST', body: '{}' });
    while (up.holding === 0) await new Promise((r) => setTimeout(r, 10));
    expect(seen).to.have.length(0);
    open();
    expect((await answer).status).to.equal(200);
    expect(up.holding).to.equal(0);
  });

  it('sends WebSocket upgrades to the handler that takes them, refuses the rest as unrouted', async () => {
    expect(await upgrade(up.url, '/echo/ws')).to.match(/^HTTP\/1.1 101/);
    expect(await upgrade(up.url, '/nowhere')).to.equal('');
    expect(up.violations).to.deep.equal(['kit-test: unrouted upgrade GET /nowhere']);
  });

  it('serves only the built-in dialects it was started with; others are unrouted', async () => {
    const res = await fetch(`${up.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).to.equal(404);
    expect(up.violations).to.deep.equal(['kit-test: unrouted POST /v1/messages']);
  });

  it('takes a dialect\'s own queue before the shared one', async () => {
    up.enqueue({ status: 500 });
    up.enqueueFor('echo', { status: 503 });
    const first = await fetch(`${up.url}/echo/json`, { method: 'POST', body: '{}' });
    const second = await fetch(`${up.url}/echo/json`, { method: 'POST', body: '{}' });
    expect([first.status, second.status]).to.deep.equal([503, 500]);
  });
});
