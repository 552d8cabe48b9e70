import { expect } from 'chai';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, errors } from '../../src/upstream/undici-core.js';
import { RequestAbort } from '../../src/upstream/request-abort.js';
import { readSseText } from '../../src/upstream/sse-readers.js';
import { dispatchUpstream, type UpstreamHead } from '../../src/upstream/upstream-body.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A loopback server answering with `handler`, and an agent to call it. */
async function upstream(handler: Handler): Promise<{ server: Server; agent: Agent; origin: string; close(): Promise<void> }> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const agent = new Agent({ pipelining: 1 });
  return {
    server,
    agent,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      // destroy, not close: a test that failed midway may leave a request unfinished.
      await agent.destroy().catch(() => undefined);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function get(u: { agent: Agent; origin: string }, path = '/', signal?: RequestAbort | AbortSignal, bodyTimeout = 10_000): Promise<UpstreamHead> {
  return dispatchUpstream(u.agent, { origin: u.origin, path, method: 'GET', headersTimeout: 10_000, bodyTimeout }, signal);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('upstream/upstream-body (the gateway\'s dispatch handler and body)', () => {
  let u: Awaited<ReturnType<typeof upstream>> | undefined;
  afterEach(async () => { await u?.close(); u = undefined; });

  it('gives status and parsed headers (lower-cased names, repeats as arrays), and the body as text, JSON and bytes', async () => {
    u = await upstream((req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.setHeader('Set-Cookie', ['a=1', 'b=2']);
      res.statusCode = req.url === '/created' ? 201 : 200;
      res.end('\uFEFF{"ok":true,"text":"h\u00e9llo"}');
    });
    const first = await get(u, '/created');
    expect(first.status).to.equal(201);
    // One header is found without parsing the others, before and after they are parsed.
    expect(first.header('content-type')).to.equal('application/json');
    expect(first.header('set-cookie')).to.equal('a=1');
    expect(first.header('x-missing')).to.equal(undefined);
    expect(first.headers['content-type']).to.equal('application/json');
    expect(first.headers['set-cookie']).to.deep.equal(['a=1', 'b=2']);
    expect(first.header('set-cookie')).to.equal('a=1');
    // A leading byte order mark is dropped, as undici's own text() does.
    expect(await first.body.text()).to.equal('{"ok":true,"text":"h\u00e9llo"}');
    expect(await (await get(u)).body.json()).to.deep.equal({ ok: true, text: 'h\u00e9llo' });
    const bytes = Buffer.from(await (await get(u)).body.arrayBuffer());
    expect(bytes.subarray(0, 3)).to.deep.equal(Buffer.from([0xef, 0xbb, 0xbf]));
    expect(bytes.length).to.equal(Buffer.byteLength('\uFEFF{"ok":true,"text":"h\u00e9llo"}'));
  });

  it('rejects json() of a body that is not JSON with a SyntaxError', async () => {
    u = await upstream((_req, res) => res.end('<html>busy</html>'));
    let caught: unknown;
    await (await get(u)).body.json().catch((e: unknown) => { caught = e; });
    expect(caught).to.be.instanceOf(SyntaxError);
  });

  it('refuses a second read of one body', async () => {
    u = await upstream((_req, res) => res.end('{}'));
    const head = await get(u);
    await head.body.text();
    let caught: unknown;
    await head.body.text().catch((e: unknown) => { caught = e; });
    expect(caught).to.be.instanceOf(TypeError).with.property('message').that.matches(/unusable/);
  });

  it('reads a large body whole and intact, and takes in no more than ~64 KiB of it while nobody reads it', async () => {
    const piece = Buffer.alloc(64 * 1024, 'x');
    const pieces = 64;
    u = await upstream((_req, res) => {
      let i = 0;
      const more = (): void => {
        while (i < pieces) {
          i++;
          if (!res.write(piece)) { res.once('drain', more); return; }
        }
        res.end();
      };
      more();
    });
    // What undici's parser hands the body (the kernel's socket buffers may hold more, outside the process).
    let received = 0;
    const onChunk = (message: unknown) => { received += (message as { chunk: Buffer }).chunk.length; };
    subscribe('undici:request:bodyChunkReceived', onChunk);
    try {
      const head = await get(u);
      await sleep(300);
      // Held up to 64 KiB, then paused: at most one more read's worth got in before the pause.
      expect(received).to.be.above(0).and.at.most(2 * 64 * 1024);
      const text = await head.body.text();
      expect(text.length).to.equal(pieces * piece.length);
      expect(/^x+$/.test(text)).to.equal(true);
      expect(received).to.equal(pieces * piece.length);
    } finally {
      unsubscribe('undici:request:bodyChunkReceived', onChunk);
    }
  });

  it('hands chunks to a Readable as they come, and leaving its loop early aborts the request', async () => {
    let closed = false;
    u = await upstream((_req, res) => {
      res.on('close', () => { closed = res.writableFinished ? closed : true; });
      res.write('one');
      setTimeout(() => res.write('two'), 30);
      // Never ends on its own.
    });
    const head = await get(u);
    const seen: string[] = [];
    for await (const chunk of head.body.toReadable()) {
      seen.push(String(chunk));
      if (seen.join('') === 'onetwo') break;
    }
    expect(seen.join('')).to.equal('onetwo');
    for (let i = 0; i < 50 && !closed; i++) await sleep(10);
    expect(closed, 'the upstream saw its connection end').to.equal(true);
    expect(head.body.destroyed).to.equal(true);
  });

  it('destroy() of an unread, unfinished body aborts the request; of a finished one changes nothing', async () => {
    let cut = false;
    u = await upstream((req, res) => {
      if (req.url === '/done') { res.end('done'); return; }
      res.on('close', () => { if (!res.writableFinished) cut = true; });
      res.write('partial');
    });
    const open = await get(u, '/open');
    open.body.destroy();
    for (let i = 0; i < 50 && !cut; i++) await sleep(10);
    expect(cut).to.equal(true);
    let caught: unknown;
    await open.body.text().catch((e: unknown) => { caught = e; });
    expect(caught).to.be.instanceOf(TypeError);

    let connections = 0;
    u.server.on('connection', () => { connections++; });
    const done = await get(u, '/done');
    await sleep(20);
    done.body.destroy();
    // The connection was not cut: the next request goes over it.
    expect(await (await get(u, '/done')).body.text()).to.equal('done');
    expect(connections).to.equal(1);
  });

  it('fails with the signal\'s reason: aborted before the call, before the answer, and while the body arrives', async () => {
    u = await upstream((req, res) => {
      if (req.url === '/slow-head') { setTimeout(() => res.end('late'), 2000); return; }
      res.write('start');
    });
    const early = new RequestAbort();
    const reason = new Error('client went away');
    early.abort(reason);
    let caught: unknown;
    await get(u, '/', early).catch((e: unknown) => { caught = e; });
    expect(caught).to.equal(reason);

    const beforeHead = new AbortController();
    setTimeout(() => beforeHead.abort(reason), 30);
    caught = undefined;
    await get(u, '/slow-head', beforeHead.signal).catch((e: unknown) => { caught = e; });
    expect(caught).to.equal(reason);

    const during = new RequestAbort();
    const head = await get(u, '/stream', during);
    const reading = head.body.text();
    setTimeout(() => during.abort(reason), 30);
    caught = undefined;
    await reading.catch((e: unknown) => { caught = e; });
    expect(caught).to.equal(reason);
    expect(during.listenerCount('abort'), 'the listener is removed once the call is over').to.equal(0);
  });

  it('fails a read with undici\'s errors: a connection cut mid-body, and a body that stalls past its deadline', async () => {
    u = await upstream((req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('only part');
      if (req.url === '/cut') setTimeout(() => res.socket?.destroy(), 20);
    });
    let caught: unknown;
    await (await get(u, '/cut')).body.text().catch((e: unknown) => { caught = e; });
    expect(caught).to.be.instanceOf(errors.SocketError);

    caught = undefined;
    await (await get(u, '/stall', undefined, 100)).body.text().catch((e: unknown) => { caught = e; });
    expect(caught).to.be.instanceOf(errors.BodyTimeoutError);
  });

  it('rejects the head with undici\'s error when the upstream cannot be reached', async () => {
    u = await upstream((_req, res) => res.end());
    const agent = new Agent();
    let caught: unknown;
    try {
      await dispatchUpstream(agent, { origin: 'http://127.0.0.1:1', path: '/', method: 'GET' });
    } catch (e) {
      caught = e;
    } finally {
      await agent.close();
    }
    expect((caught as { code?: string }).code).to.equal('ECONNREFUSED');
  });

  it('gives a Node Readable of the body that pipes whole', async () => {
    u = await upstream((_req, res) => { res.write('a'); setTimeout(() => res.end('b'), 20); });
    const readable = (await get(u)).body.toReadable();
    const parts: Buffer[] = [];
    for await (const chunk of readable) parts.push(chunk as Buffer);
    expect(Buffer.concat(parts).toString()).to.equal('ab');
  });

  it('feeds the SSE reader one batch per network read, and one per read as events trickle in', async () => {
    const event = (i: number) => `data: {"i":${i}}\n\n`;
    u = await upstream((req, res) => {
      res.setHeader('content-type', 'text/event-stream');
      if (req.url === '/burst') {
        // Twenty events written back to back as separate HTTP chunks: they arrive in one read.
        res.flushHeaders();
        res.socket?.cork();
        for (let i = 0; i < 20; i++) res.write(event(i));
        res.end();
        return;
      }
      let i = 0;
      const timer = setInterval(() => {
        res.write(event(i++));
        if (i === 3) { clearInterval(timer); res.end(); }
      }, 25);
    });
    const burst: string[] = [];
    for await (const [text] of readSseText((await get(u, '/burst')).body)) burst.push(text);
    expect(burst.join('')).to.equal(Array.from({ length: 20 }, (_, i) => event(i)).join(''));
    expect(burst.length).to.be.at.most(2);

    const trickle: string[] = [];
    for await (const [text] of readSseText((await get(u, '/trickle')).body)) trickle.push(text);
    expect(trickle).to.deep.equal([event(0), event(1), event(2)]);
  });

  it('gives the SSE reader the events that arrived, then the failure of a stream cut mid-way', async () => {
    u = await upstream((_req, res) => {
      res.setHeader('content-type', 'text/event-stream');
      res.write('data: {"i":0}\n\n');
      setTimeout(() => res.write('data: {"i":1}\n\ndata: {"i":'), 20);
      setTimeout(() => res.socket?.destroy(), 50);
    });
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const [text] of readSseText((await get(u)).body)) seen.push(text);
    } catch (e) {
      caught = e;
    }
    expect(seen.join('')).to.equal('data: {"i":0}\n\ndata: {"i":1}\n\n');
    expect(caught).to.be.instanceOf(errors.SocketError);
  });
});
