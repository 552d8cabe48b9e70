import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { parseMultipart, type ParsedForm } from './multipart.js';

/** One request a fake upstream received, fully read. */
export interface FakeRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  raw: Buffer;
  /** Parsed JSON body, when the body was JSON. */
  json?: unknown;
  /** Parsed multipart body (a real parser: formidable), when the body was multipart. */
  form?: ParsedForm;
}

/** What a fake route answers. */
export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  body?: Buffer | string;
  /** Chunks written one by one (to prove streaming). */
  chunks?: Buffer[];
}

export type FakeHandler = (req: FakeRequest) => FakeReply | Promise<FakeReply>;

/** A running fake upstream on 127.0.0.1 with a random port. */
export interface FakeServer {
  url: string;
  server: Server;
  /** Every request received, in order. */
  requests: FakeRequest[];
  close(): Promise<void>;
}

/**
 * Starts a fake upstream: each request is read whole, parsed (JSON or multipart), recorded,
 * and answered by `handle`. Errors in the handler become 500s so a test sees them.
 */
export async function startFakeServer(handle: FakeHandler): Promise<FakeServer> {
  const requests: FakeRequest[] = [];
  const server = createServer((req, res) => {
    void serve(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake failed: ${(e as Error).message}`, type: 'fake_error' } }));
    });
  });
  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://fake');
    const type = String(req.headers['content-type'] ?? '');
    const recorded: FakeRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, raw };
    if (type.startsWith('application/json') && raw.length > 0) recorded.json = JSON.parse(raw.toString('utf8'));
    if (type.startsWith('multipart/form-data')) recorded.form = await parseMultipart(Readable.from([raw]), req.headers);
    requests.push(recorded);
    const reply = await handle(recorded);
    const headers: Record<string, string> = { ...(reply.headers ?? {}) };
    if (reply.json !== undefined) headers['content-type'] ??= 'application/json';
    res.writeHead(reply.status ?? 200, headers);
    if (reply.chunks) {
      for (const c of reply.chunks) {
        res.write(c);
        await new Promise((r) => setTimeout(r, 5));
      }
      res.end();
    } else {
      res.end(reply.json !== undefined ? JSON.stringify(reply.json) : reply.body ?? '');
    }
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** An error body in OpenAI's envelope. */
export function openAiError(status: number, message: string, type = 'invalid_request_error', code: string | null = null): FakeReply {
  return { status, json: { error: { message, type, param: null, code } } };
}

/** The bearer token of a request ('' when absent). */
export function bearerOf(req: FakeRequest): string {
  return String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
}
