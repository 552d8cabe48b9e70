/**
 * The Node baseline (run as its own process): a bare pass-through proxy with undici, no auth,
 * no parsing, no validation. Forwards method, path, headers and body to UPSTREAM and streams
 * the answer back. Prints `READY <port>` on stdout once listening.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';

const upstream = process.env.UPSTREAM ?? 'http://127.0.0.1:8081';
const agent = new Agent({ connections: 256, keepAliveTimeout: 30_000, pipelining: 1 });
const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

const server = createServer({ keepAliveTimeout: 65_000 }, async (req, res) => {
  const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !HOP.has(k))) as Record<string, string>;
  try {
    const up = await request(upstream + (req.url ?? '/'), { method: req.method as 'POST', headers, body: req, dispatcher: agent });
    const out = Object.fromEntries(Object.entries(up.headers).filter(([k]) => !HOP.has(k)));
    res.writeHead(up.statusCode, out as Record<string, string>);
    await pipeline(up.body, res);
  } catch {
    if (!res.headersSent) res.writeHead(502);
    if (!res.writableEnded) res.end();
  }
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`READY ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
