/**
 * The fake-upstream kit: one HTTP server per provider deployment on 127.0.0.1 that speaks every
 * dialect the gateway calls (see dialects.ts), validates each request like the provider would
 * (a refused request is a recorded violation tests assert empty) and injects faults per
 * request: an error status with its body and Retry-After / retry-after-ms, a reset connection,
 * no headers until the client gives up, a slow first byte, a stream cut mid-way (socket
 * destroyed) or ended by the provider's in-band error event, slow chunks, a stall. Faults are
 * scripted in order (`enqueue`) or drawn at random (`failRate`, for the benchmark).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DIALECTS, type Dialect, type RouteMatch } from './dialects.js';

/** What the upstream does with one request; `{}` is a normal answer. */
export interface Fault {
  /** Answer this status with the dialect's error body. */
  status?: number;
  message?: string;
  /** `Retry-After` header (seconds or an HTTP date). */
  retryAfter?: string;
  /** OpenAI's `retry-after-ms` header. */
  retryAfterMs?: string;
  /** Destroy the connection without answering. */
  reset?: boolean;
  /** Never send headers (the client's deadline or disconnect ends it). */
  hang?: boolean;
  /** Wait this long before the headers. */
  firstByteDelayMs?: number;
  /** Streams: send this many events, then destroy the connection (no terminal event). */
  cutAfterEvents?: number;
  /** Streams: send this many events, then the provider's in-band error event. */
  failAfterEvents?: number;
  /** Streams: send this many events, then go silent. */
  stallAfterEvents?: number;
  /** Streams: pause between events (ms). */
  eventDelayMs?: number;
  /** Fixture name under test/fixtures/text-upstreams/<dialect>/ (default `text`). */
  fixture?: string;
  /** JSON answers: leave out `usage` (a provider that reports none). */
  omitUsage?: boolean;
}

/** One request as received. */
export interface KitRequest {
  dialect: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  stream: boolean;
  /** The model named in the URL (Gemini). */
  model?: string;
  /** The fault applied to it. */
  fault: Fault;
}

/** A running fake deployment. */
export interface KitUpstream {
  readonly name: string;
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string;
  readonly apiKey: string;
  readonly requests: KitRequest[];
  /** Requests the provider would have refused, and requests no dialect serves. */
  readonly violations: string[];
  /** Scripts the faults of the next requests, in order (then normal answers). */
  enqueue(...faults: Fault[]): void;
  /** From now on each request fails with `fault` with probability `rate` (0 = never). */
  failRandomly(rate: number, fault?: Fault): void;
  /** Forgets requests, violations and scripted faults (and random failures). */
  reset(): void;
  close(): Promise<void>;
}

/** Starts one fake deployment that accepts `apiKey`. */
export async function startKitUpstream(name: string, apiKey: string): Promise<KitUpstream> {
  const requests: KitRequest[] = [];
  const violations: string[] = [];
  let queue: Fault[] = [];
  let rate = 0;
  let randomFault: Fault = { status: 503 };
  const server = createServer((req, res) => {
    void serve(req, res).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`kit upstream crashed: ${String(e)}`);
    });
  });
  server.keepAliveTimeout = 30_000;

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let dialect: Dialect | undefined;
    let route: RouteMatch | undefined;
    for (const d of DIALECTS) {
      route = d.match(req.method ?? 'GET', url);
      if (route) { dialect = d; break; }
    }
    if (!dialect || !route) {
      violations.push(`${name}: unrouted ${req.method} ${url.pathname}`);
      return sendJson(res, 404, { error: { message: `no route for ${url.pathname}` } });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      violations.push(`${name}/${dialect.name}: body is not JSON`);
      return sendJson(res, 400, dialect.errorBody(400, 'body is not JSON'));
    }
    const stream = dialect.isStream(body, route);
    const fault = queue.shift() ?? (rate > 0 && Math.random() < rate ? randomFault : {});
    requests.push({ dialect: dialect.name, path: url.pathname, headers: req.headers, body, stream, fault, ...(route.model !== undefined ? { model: route.model } : {}) });
    const auth = dialect.checkHeaders(req.headers, url, apiKey);
    if (auth) {
      violations.push(`${name}/${dialect.name}: ${auth.message}`);
      return sendJson(res, auth.status, dialect.errorBody(auth.status, auth.message));
    }
    const findings = dialect.validate(body, route, req.headers);
    if (findings.length > 0) {
      violations.push(`${name}/${dialect.name}: ${findings.join('; ')}`);
      return sendJson(res, 400, dialect.errorBody(400, findings.join('; ')));
    }
    if (fault.hang) return;
    if (fault.reset) {
      req.socket.destroy();
      return;
    }
    if (fault.firstByteDelayMs) {
      await delay(fault.firstByteDelayMs);
      if (res.destroyed) return;
    }
    if (fault.status) {
      const headers: Record<string, string> = {};
      if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
      if (fault.retryAfterMs !== undefined) headers['retry-after-ms'] = fault.retryAfterMs;
      return sendJson(res, fault.status, dialect.errorBody(fault.status, fault.message ?? `${name} failed`), headers);
    }
    if (dialect.kind === 'operation') return sendJson(res, 200, dialect.answer!(body), { 'x-upstream': name });
    const fixture = fault.fixture ?? 'text';
    if (!stream) {
      const answer = JSON.parse(readFixture(dialect.name, `${fixture}.json`)) as Record<string, unknown>;
      if (fault.omitUsage) delete answer.usage;
      return sendJson(res, 200, answer, { 'x-upstream': name });
    }
    await sendStream(req, res, dialect, splitEvents(readFixture(dialect.name, `${fixture}.sse`)), fault);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    violations,
    enqueue: (...faults) => { queue.push(...faults); },
    failRandomly: (r, f = { status: 503 }) => { rate = r; randomFault = f; },
    reset: () => {
      requests.length = 0;
      violations.length = 0;
      queue = [];
      rate = 0;
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function sendStream(req: IncomingMessage, res: ServerResponse, dialect: Dialect, events: string[], fault: Fault): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.flushHeaders();
  for (let i = 0; i < events.length; i++) {
    if (res.destroyed) return;
    if (fault.cutAfterEvents === i) {
      req.socket.destroy();
      return;
    }
    if (fault.failAfterEvents === i) {
      res.end(dialect.streamErrorEvent('The upstream model failed mid-stream.'));
      return;
    }
    if (fault.stallAfterEvents === i) return;
    res.write(events[i]);
    if (fault.eventDelayMs) await delay(fault.eventDelayMs);
  }
  res.end();
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

const fixtures = new Map<string, string>();
/** A recorded upstream answer (cached: the benchmark reads them many times). */
function readFixture(dialect: string, file: string): string {
  const key = `${dialect}/${file}`;
  let text = fixtures.get(key);
  if (text === undefined) fixtures.set(key, (text = readFileSync(path.resolve(process.cwd(), 'test/fixtures/text-upstreams', dialect, file), 'utf8')));
  return text;
}

function splitEvents(text: string): string[] {
  return text.replace(/\r\n/g, '\n').split(/\n\n+/).map((e) => e.trim()).filter((e) => e.length > 0).map((e) => `${e}\n\n`);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
