import { expect } from 'chai';
import type { RequestListener } from 'node:http';
import { injectRequest } from '../../src/server/inject-request.js';

/** What the handler saw of one injected request, and how its response ended. */
interface Seen { method?: string; url?: string; peer?: string; body?: string; finishedAtClose?: boolean }

/** A handler that streams `chunks` with a turn between each, recording what it saw. */
function streaming(seen: Seen, chunks: string[]): RequestListener {
  return (req, res) => {
    seen.method = req.method;
    seen.url = req.url;
    seen.peer = req.socket.remoteAddress;
    res.once('close', () => { seen.finishedAtClose = res.writableFinished; });
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { body += c; });
    req.on('end', async () => {
      seen.body = body;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const chunk of chunks) {
        if (res.destroyed) return;
        res.write(chunk);
        await new Promise((r) => setImmediate(r));
      }
      res.end();
    });
  };
}

async function text(body: AsyncIterable<Buffer>): Promise<string> {
  let out = '';
  for await (const chunk of body) out += chunk.toString('utf8');
  return out;
}

describe('server/inject-request', () => {
  it('hands the handler the request with the client address given, and streams its answer back', async () => {
    const seen: Seen = {};
    const answer = await injectRequest(streaming(seen, ['data: 1\n\n', 'data: 2\n\n']), {
      method: 'POST', path: '/v1/responses', headers: { 'content-type': 'application/json' }, remoteAddress: '203.0.113.9', body: '{"a":1}',
    }, new AbortController().signal);
    expect(answer.status).to.equal(200);
    expect(answer.header('Content-Type')).to.equal('text/event-stream');
    expect(await text(answer.body)).to.equal('data: 1\n\ndata: 2\n\n');
    await new Promise((r) => setImmediate(r));
    expect(seen).to.deep.equal({ method: 'POST', url: '/v1/responses', peer: '203.0.113.9', body: '{"a":1}', finishedAtClose: true });
  });

  it('ends the response as a client that went away when the signal aborts: it closes unfinished', async () => {
    const seen: Seen = {};
    const abort = new AbortController();
    const answer = await injectRequest(streaming(seen, Array.from({ length: 1000 }, (_, i) => `data: ${i}\n\n`)), {
      method: 'POST', path: '/x', headers: {}, remoteAddress: '198.51.100.1', body: '{}',
    }, abort.signal);
    const read = text(answer.body).then(() => 'ended', () => 'cut');
    abort.abort();
    expect(await read).to.equal('cut');
    await new Promise((r) => setImmediate(r));
    expect(seen.finishedAtClose).to.equal(false);
  });
});
