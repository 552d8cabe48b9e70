/**
 * The Node baseline (run as its own process), as ../shared/bench/baseline-proxy.cjs: node:http
 * in, undici out; parses the JSON body, rewrites `model` to the provider's name, forwards it and
 * streams the answer bytes back unchanged. No auth, no validation, no accounting.
 * Prints `READY <port>` on stdout once listening.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

const upstream = (process.env.UPSTREAM ?? 'http://127.0.0.1:8081').replace(/\/$/, '');
const agent = new Agent({ connections: 128, keepAliveTimeout: 30_000, pipelining: 1 });
const PASS = ['content-type', 'content-length', 'x-request-id', 'cache-control'];

async function forward(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
  let body: { model?: unknown };
  try {
    body = JSON.parse(raw) as { model?: unknown };
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"invalid json","type":"gateway_error"}}');
    return;
  }
  if (typeof body.model === 'string') body.model = body.model.slice(body.model.indexOf('/') + 1);
  const up = await request(upstream + (req.url ?? '/'), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: req.headers.authorization ?? 'Bearer x' },
    body: JSON.stringify(body),
    dispatcher: agent,
  });
  const out: Record<string, string> = {};
  for (const h of PASS) if (typeof up.headers[h] === 'string') out[h] = up.headers[h] as string;
  res.writeHead(up.statusCode, out);
  up.body.on('error', () => res.destroy());
  up.body.pipe(res);
}

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (c: string) => { raw += c; });
  req.on('end', () => {
    forward(req, res, raw).catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
