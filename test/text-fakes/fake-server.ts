/**
 * A node:http server on 127.0.0.1 (port 0) that mounts one or more fake upstreams. OpenAI's chat
 * completions and responses fakes share one server because both providers read the same
 * OPENAI_BASE_URL.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeUpstream } from './fake-upstream.js';

/** A running fake server. */
export interface FakeServer {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  url: string;
  /** Requests no mounted fake serves (a wrong path is a gateway bug: tests assert none). */
  unrouted: string[];
  close(): Promise<void>;
}

/** Starts a server routing each request to the first mounted fake whose dialect matches it. */
export async function startFakeServer(fakes: FakeUpstream[]): Promise<FakeServer> {
  const unrouted: string[] = [];
  const server = createServer((req, res) => {
    void route(fakes, req, res, unrouted).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`fake upstream crashed: ${String(e)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    unrouted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections(); // hanging test requests must not keep the process alive
        server.close(() => resolve());
      }),
  };
}

async function route(fakes: FakeUpstream[], req: IncomingMessage, res: ServerResponse, unrouted: string[]): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  for (const fake of fakes) {
    const match = fake.behavior.match(req.method ?? 'GET', url);
    if (match) return fake.handle(req, res, url, match, raw);
  }
  unrouted.push(`${req.method} ${url.pathname}${url.search}`);
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: `fake upstream: no route for ${req.method} ${url.pathname}` } }));
}
