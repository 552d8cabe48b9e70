/**
 * The fake-upstream kit: one HTTP server per provider deployment on 127.0.0.1 that speaks every
 * text and JSON-operation dialect the gateway calls (see dialects.ts) plus any handler dialects
 * it is started with (provider APIs served by code, see handler.ts). It validates each request
 * like the provider would (a refused request is a recorded violation tests assert empty) and
 * injects faults per request (see fault.ts): an error status with its body and Retry-After /
 * retry-after-ms, a reset connection, no headers until the client gives up, a slow or held
 * first byte, a stream cut / reset / ended / corrupted mid-way or ended by the provider's
 * in-band error event, slow chunks, a stall. Faults are scripted in order (`enqueue`, or
 * `enqueueFor` one dialect), drawn at random (`failRandomly`, for the benchmark) or applied to
 * every request (`setDefaultFault`).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { DIALECTS, type Dialect, type RouteMatch } from './dialects.js';
import { errorHeaders, gateOf, type Fault } from './fault.js';
import type { HandlerDialect, HandlerReply, HandlerRequest, ParsedForm } from './handler.js';
import { CHUNK_PAUSE_MS, delay, sendJson, writeEvents } from './reply-writer.js';
import { readBody, type ReadBody } from './request-body.js';

/** @public The kit's fault vocabulary, for suites that script faults. */
export type { Fault, Gate } from './fault.js';

/** One request as received. */
export interface KitRequest {
  /** The dialect (built-in or handler) that served it. */
  dialect: string;
  method: string;
  /** Path without the query. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The JSON body when it was a JSON object, else `{}`. */
  body: Record<string, unknown>;
  raw: Buffer;
  /** The parsed JSON body (any JSON value). */
  json?: unknown;
  /** The parsed multipart body. */
  form?: ParsedForm;
  stream: boolean;
  /** The model named in the URL (Gemini). */
  model?: string;
  /** The fault applied to it. */
  fault: Fault;
  /** Set when the client closed the connection before the answer was complete. */
  aborted: boolean;
  /** Resolves when the client went away before the answer was complete. */
  abortedSignal: Promise<void>;
  /** Resolves when the connection of this answer closed: after the whole answer, or aborted. */
  closed: Promise<'aborted' | 'finished'>;
  /** Stream events (or handler chunks) written so far. */
  eventsSent: number;
}

/** How a deployment is started. */
export interface KitOptions {
  /** Provider APIs served by code; tried before the built-in dialects, in order. */
  handlers?: readonly HandlerDialect[];
  /** Built-in dialects this deployment serves (default all); others are unrouted, like at a real provider. */
  dialects?: readonly string[];
  /**
   * The deployment lives under this path prefix (an OpenAI-compatible provider at `/acme/v1`
   * is `basePath: '/acme'`): dialects match the rest, requests outside it are unrouted.
   */
  basePath?: string;
  /** What text dialects answer when the fault names no `answer` or `fixture` (default: the `text` fixture). */
  answer?: Fault['answer'];
  /** The fault of every request nothing scripted (`reset` restores it); e.g. a hold or a slow stream. */
  defaultFault?: Fault;
  /** Other keys the deployment accepts besides `apiKey` (a key being rotated). */
  extraKeys?: readonly string[];
}

/** A running fake deployment. */
export interface KitUpstream {
  readonly name: string;
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string;
  readonly apiKey: string;
  /** The node server (e.g. to count connections). */
  readonly server: Server;
  readonly requests: KitRequest[];
  /** Requests the provider would have refused, and requests no dialect serves (`unrouted`). */
  readonly violations: string[];
  /** Requests waiting on a `holdUntil` right now. */
  readonly holding: number;
  /** Resolves once at least `n` requests are waiting on a `holdUntil`. */
  whenHolding(n: number): Promise<void>;
  /** Scripts the faults of the next requests, in order (then normal answers). */
  enqueue(...faults: Fault[]): void;
  /** Scripts the faults of the next requests of one dialect (used before the shared queue). */
  enqueueFor(dialect: string, ...faults: Fault[]): void;
  /** From now on each request fails with `fault` with probability `rate` (0 = never). */
  failRandomly(rate: number, fault?: Fault): void;
  /** The fault of every request nothing scripted (undefined = a normal answer). */
  setDefaultFault(fault: Fault | undefined): void;
  /** The most recent request (of `dialect` when given); throws when there is none. */
  last(dialect?: string): KitRequest;
  /** Forgets requests, violations, scripted and random faults; the default fault goes back to the start option's. */
  reset(): void;
  close(): Promise<void>;
}

/** What served a request: a built-in dialect with its route, or a handler dialect. */
type Served = { dialect: Dialect; route: RouteMatch } | { handler: HandlerDialect };

/** Starts one fake deployment that accepts `apiKey`. */
export async function startKitUpstream(name: string, apiKey: string, options: KitOptions = {}): Promise<KitUpstream> {
  const handlers = options.handlers ?? [];
  const builtIns = options.dialects ? DIALECTS.filter((d) => options.dialects!.includes(d.name)) : DIALECTS;
  const requests: KitRequest[] = [];
  const violations: string[] = [];
  let queue: Fault[] = [];
  const dialectQueues = new Map<string, Fault[]>();
  let rate = 0;
  let randomFault: Fault = { status: 503 };
  let defaultFault: Fault | undefined = options.defaultFault;
  let holding = 0;
  const holdWatchers = new Set<() => void>();
  const upgraded = new Set<Duplex>();

  const server = createServer((req, res) => {
    void serve(req, res).catch((e: unknown) => {
      violations.push(`${name}: kit upstream crashed: ${String(e)}`);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`kit upstream crashed: ${String(e)}`);
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    for (const h of handlers) {
      if (h.upgrade?.(req, socket, head)) {
        upgraded.add(socket);
        socket.once('close', () => upgraded.delete(socket));
        return;
      }
    }
    violations.push(`${name}: unrouted upgrade ${req.method} ${req.url}`);
    socket.destroy();
  });

  function nextFault(dialect: string): Fault {
    return dialectQueues.get(dialect)?.shift() ?? queue.shift() ?? (rate > 0 && Math.random() < rate ? randomFault : defaultFault ?? {});
  }

  async function hold(fault: Fault, entry: KitRequest): Promise<void> {
    const gate = fault.holdUntil ? gateOf(fault.holdUntil, entry) : undefined;
    if (!gate) return;
    holding++;
    for (const w of [...holdWatchers]) w();
    try {
      await gate;
    } finally {
      holding--;
    }
  }

  function route(method: string, full: URL): Served | undefined {
    const base = options.basePath?.replace(/\/$/, '');
    let url = full;
    if (base) {
      if (!full.pathname.startsWith(`${base}/`)) return undefined;
      url = new URL(full.href);
      url.pathname = full.pathname.slice(base.length);
    }
    for (const handler of handlers) if (handler.match(method, url)) return { handler };
    for (const dialect of builtIns) {
      const r = dialect.match(method, url);
      if (r) return { dialect, route: r };
    }
    return undefined;
  }

  function record(req: IncomingMessage, res: ServerResponse, url: URL, dialect: string, read: ReadBody, fault: Fault): KitRequest {
    let onAbort: () => void = () => undefined;
    let onClose: (how: 'aborted' | 'finished') => void = () => undefined;
    const json = read.json;
    const entry: KitRequest = {
      dialect,
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body: typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : {},
      raw: read.raw,
      stream: false,
      fault,
      eventsSent: 0,
      aborted: false,
      abortedSignal: new Promise<void>((resolve) => (onAbort = resolve)),
      closed: new Promise<'aborted' | 'finished'>((resolve) => (onClose = resolve)),
      ...(json !== undefined ? { json } : {}),
      ...(read.form ? { form: read.form } : {}),
    };
    res.on('close', () => {
      if (!res.writableFinished) {
        entry.aborted = true;
        onAbort();
      }
      onClose(res.writableFinished ? 'finished' : 'aborted');
    });
    requests.push(entry);
    return entry;
  }

  /**
   * The faults that pre-empt an answer (hang, reset, slow or held first byte, error status).
   * Returns true when the request is done with.
   */
  async function preempt(req: IncomingMessage, res: ServerResponse, entry: KitRequest, errorBody: (status: number, message: string) => unknown, headers: Record<string, string>, holdsBeforeHeaders: boolean): Promise<boolean> {
    const fault = entry.fault;
    if (fault.hang) return true; // never answer; `res.on('close')` records the client's disconnect
    if (fault.reset) {
      req.socket.destroy();
      return true;
    }
    if (fault.firstByteDelayMs) {
      await delay(fault.firstByteDelayMs);
      if (res.destroyed) return true;
    }
    if (fault.holdUntil && (fault.holdAfterEvents === undefined || holdsBeforeHeaders)) {
      await hold(fault, entry);
      if (res.destroyed) return true;
    }
    if (fault.status) {
      sendJson(res, fault.status, fault.errorBody ?? errorBody(fault.status, fault.message ?? `${name} failed`), { ...headers, ...errorHeaders(fault) });
      return true;
    }
    if (fault.rawAnswer) {
      if (!res.destroyed) {
        res.writeHead(fault.rawAnswer.status ?? 200, { ...headers, ...(fault.headers ?? {}), 'content-type': fault.rawAnswer.contentType });
        res.end(fault.rawAnswer.body);
      }
      return true;
    }
    return false;
  }

  async function serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const read = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const served = route(method, url);
    if (!served) {
      violations.push(`${name}: unrouted ${method} ${url.pathname}${url.search}`);
      return sendJson(res, 404, { error: { message: `no route for ${method} ${url.pathname}` } });
    }
    if ('handler' in served) return serveHandler(req, res, url, served.handler, read);
    return serveText(req, res, url, served.dialect, served.route, read);
  }

  async function serveHandler(req: IncomingMessage, res: ServerResponse, url: URL, handler: HandlerDialect, read: ReadBody): Promise<void> {
    const fault = nextFault(handler.name);
    const entry = record(req, res, url, handler.name, read, fault);
    if (read.problem) {
      violations.push(`${name}/${handler.name}: ${read.problem}`);
      return sendJson(res, 400, handler.errorBody(400, read.problem));
    }
    if (await preempt(req, res, entry, (s, m) => handler.errorBody(s, m), {}, false)) return;
    const request: HandlerRequest = {
      method: entry.method, path: entry.path, query: url.searchParams, headers: req.headers, raw: read.raw,
      ...(read.json !== undefined ? { json: read.json } : {}),
      ...(read.form ? { form: read.form } : {}),
    };
    let reply: HandlerReply;
    try {
      reply = await handler.handle(request, violations);
    } catch (e) {
      violations.push(`${name}/${handler.name}: handler failed: ${(e as Error).message}`);
      return sendJson(res, 500, handler.errorBody(500, `fake handler failed: ${(e as Error).message}`));
    }
    await writeReply(res, reply, entry);
  }

  async function writeReply(res: ServerResponse, reply: HandlerReply, entry: KitRequest): Promise<void> {
    const fault = entry.fault;
    if (res.destroyed) return;
    const headers: Record<string, string> = { ...(reply.headers ?? {}), ...(fault.headers ?? {}) };
    if (reply.json !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    res.writeHead(reply.status ?? 200, headers);
    if (reply.chunks) {
      res.flushHeaders();
      return writeEvents(res, reply.chunks, fault, { pauseMs: CHUNK_PAUSE_MS, hold: () => hold(fault, entry), sent: () => entry.eventsSent++ });
    }
    res.end(reply.json !== undefined ? JSON.stringify(reply.json) : reply.body ?? '');
  }

  async function serveText(req: IncomingMessage, res: ServerResponse, url: URL, dialect: Dialect, route: RouteMatch, read: ReadBody): Promise<void> {
    let body: unknown = read.json;
    if (body === undefined) {
      // Providers read the body as JSON whatever the content type says.
      try {
        body = JSON.parse(read.raw.toString('utf8'));
      } catch {
        body = undefined;
      }
    }
    const fault = nextFault(dialect.name);
    const entry = record(req, res, url, dialect.name, { ...read, ...(body !== undefined ? { json: body } : {}) }, fault);
    if (route.model !== undefined) entry.model = route.model;
    const common = { 'x-upstream': name, ...(dialect.responseHeaders?.() ?? {}) };
    const refuse = (status: number, message: string): void => {
      violations.push(`${name}/${dialect.name}: ${message}`);
      sendJson(res, status, dialect.errorBody(status, message), common);
    };
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return refuse(400, `body is not a JSON object: ${read.raw.toString('utf8').slice(0, 80)}`);
    entry.stream = dialect.isStream(entry.body, route);
    const problems = [apiKey, ...(options.extraKeys ?? [])].map((key) => dialect.checkHeaders(req.headers, url, key));
    const auth = problems.includes(undefined) ? undefined : problems[0];
    if (auth) return refuse(auth.status, auth.message);
    const findings = dialect.validate(entry.body, route, req.headers);
    if (findings.length > 0) return refuse(400, `request rejected by the provider schema: ${findings.join('; ')}`);
    if (await preempt(req, res, entry, (s, m) => dialect.errorBody(s, m), common, !entry.stream)) return;
    const headers = { ...common, ...(fault.headers ?? {}) };
    if (dialect.kind === 'operation') return sendJson(res, 200, transform(dialect.answer!(entry.body), fault), headers);
    const fixture = fault.fixture ?? 'text';
    const scripted = fault.answer ?? (fault.fixture === undefined ? options.answer : undefined);
    if (!entry.stream) {
      const answer = scripted?.json ? structuredClone(scripted.json) : JSON.parse(readFixture(dialect.name, `${fixture}.json`)) as Record<string, unknown>;
      if (fault.omitUsage) delete answer.usage;
      return sendJson(res, 200, transform(answer, fault), headers);
    }
    if (res.destroyed) return;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
    res.flushHeaders();
    const events = scripted?.events ?? splitEvents(readFixture(dialect.name, `${fixture}.sse`));
    await writeEvents(res, events, fault, { errorEvent: dialect.streamErrorEvent, hold: () => hold(fault, entry), sent: () => entry.eventsSent++ });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    apiKey,
    server,
    requests,
    violations,
    get holding() { return holding; },
    whenHolding: (n) => new Promise<void>((resolve) => {
      const check = (): void => {
        if (holding < n) return;
        holdWatchers.delete(check);
        resolve();
      };
      holdWatchers.add(check);
      check();
    }),
    enqueue: (...faults) => { queue.push(...faults); },
    enqueueFor: (dialect, ...faults) => {
      const q = dialectQueues.get(dialect) ?? [];
      q.push(...faults);
      dialectQueues.set(dialect, q);
    },
    failRandomly: (r, f = { status: 503 }) => { rate = r; randomFault = f; },
    setDefaultFault: (f) => { defaultFault = f; },
    last: (dialect) => {
      const r = dialect === undefined ? requests.at(-1) : requests.findLast((x) => x.dialect === dialect);
      if (!r) throw new Error(`kit ${name} received no ${dialect ?? ''} request`.replace('  ', ' '));
      return r;
    },
    reset: () => {
      requests.length = 0;
      violations.length = 0;
      queue = [];
      dialectQueues.clear();
      rate = 0;
      defaultFault = options.defaultFault;
    },
    close: () => new Promise<void>((resolve) => {
      for (const socket of upgraded) socket.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function transform(data: Record<string, unknown>, fault: Fault): Record<string, unknown> {
  return fault.transformData ? fault.transformData(data) : data;
}

const fixtures = new Map<string, string>();
/** A recorded upstream answer (cached: the benchmark reads them many times; located from the repo root). */
export function readFixture(dialect: string, file: string): string {
  const key = `${dialect}/${file}`;
  let text = fixtures.get(key);
  if (text === undefined) fixtures.set(key, (text = readFileSync(path.resolve(process.cwd(), 'test/fixtures/text-upstreams', dialect, file), 'utf8')));
  return text;
}

/** Splits an SSE fixture into whole events, each ending with its blank line. */
export function splitEvents(text: string): string[] {
  return text.replace(/\r\n/g, '\n').split(/\n\n+/).map((e) => e.trim()).filter((e) => e.length > 0).map((e) => `${e}\n\n`);
}
