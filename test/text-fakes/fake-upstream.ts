/**
 * The generic part of the fake upstreams: request recording, request validation, scripted replies
 * (recorded fixtures, errors, slow / held / failing / hanging streams). What differs per wire
 * format (routes, auth, schema, error shapes) is a `DialectBehavior` (one small module each).
 */
import { readFileSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';

/** One request a fake received, as received. */
export interface ReceivedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: Record<string, unknown>;
  /** What the route said: the model in the URL (Gemini) and whether a stream was asked for. */
  model?: string;
  stream: boolean;
  /** Set when the client closed the connection before the answer was complete. */
  aborted: boolean;
  /** Resolves when the client went away before the answer was complete. */
  abortedSignal: Promise<void>;
}

/** What a fake does with the next request. Absent fields = the default (fixture `text`). */
export interface FakeReply {
  /** Fixture under test/fixtures/text-upstreams/<dialect>/: `<name>.json` or `<name>.sse` by the request's stream flag. */
  fixture?: string;
  /** Rewrites each JSON body / each SSE data object before it is sent (unknown fields ...). */
  transformData?: (data: Record<string, unknown>) => Record<string, unknown>;
  /** Answer with an error in the provider's own format (`body`: this exact body instead). */
  error?: { status: number; message?: string; retryAfter?: string; body?: unknown };
  /** Streams: send this many events, then end the response cleanly, without a terminal event. */
  cutAfterEvents?: number;
  /** Streams: send this many events, then a frame whose data is not JSON, then the rest. */
  malformedAfterEvents?: number;
  /** Answer 200 with this body and content type instead of the fixture (JSON or event stream). */
  rawAnswer?: { contentType: string; body: string };
  /** Streams: send this many events, then reset the connection. */
  resetAfterEvents?: number;
  /** Streams: after the first event, wait for this before sending the rest. */
  holdAfterFirstEvent?: Promise<unknown>;
  /** Streams: send this many events, then the provider's in-band error event, then end. */
  failAfterEvents?: number;
  /** Streams: pause between events (ms). */
  eventDelayMs?: number;
  /** Never answer (headers never sent); the client's disconnect is recorded. */
  hang?: boolean;
  /** Streams: send the headers and this many events, then go silent forever. */
  stallAfterEvents?: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** What a request's route says, as read by a dialect. */
export interface RouteMatch { model?: string; stream?: boolean }

/** Everything that differs per upstream wire format. */
export interface DialectBehavior {
  /** Folder of the dialect's fixtures (test/fixtures/text-upstreams/<name>). */
  readonly name: string;
  /** The route this dialect serves, or undefined. */
  match(method: string, url: URL): RouteMatch | undefined;
  /** Auth and required headers: a problem (answered with `status`) or undefined. */
  checkHeaders(headers: IncomingHttpHeaders, url: URL, apiKey: string): { status: number; message: string } | undefined;
  /** Schema validation of the body: findings, empty when valid. */
  validate(body: unknown, route: RouteMatch, headers: IncomingHttpHeaders): string[];
  /** True when the request asks for a stream. */
  isStream(body: Record<string, unknown>, route: RouteMatch): boolean;
  /** The provider's error answer for a status. */
  errorBody(status: number, message: string): unknown;
  /** The provider's in-band error event, as SSE text (ending with a blank line). */
  streamErrorEvent(message: string): string;
  /** Headers the provider sends on every answer (request ids ...). */
  responseHeaders(): Record<string, string>;
}

/** A fake upstream speaking one dialect. Mount it on a FakeServer. */
export class FakeUpstream {
  readonly requests: ReceivedRequest[] = [];
  /** Every request the provider would have rejected; tests assert this stays empty. */
  readonly violations: string[] = [];
  private replies: FakeReply[] = [];

  constructor(readonly behavior: DialectBehavior, readonly apiKey: string) {}

  /** Scripts the next replies, in order. */
  enqueue(...replies: FakeReply[]): void {
    this.replies.push(...replies);
  }

  /** Forgets requests, violations and unused replies. */
  reset(): void {
    this.requests.length = 0;
    this.violations.length = 0;
    this.replies = [];
  }

  /** The most recent request (throws when there is none). */
  last(): ReceivedRequest {
    const r = this.requests.at(-1);
    if (!r) throw new Error(`fake ${this.behavior.name} received no request`);
    return r;
  }

  /** Serves one request that `behavior.match` accepted. */
  async handle(req: IncomingMessage, res: ServerResponse, url: URL, route: RouteMatch, raw: string): Promise<void> {
    let onAbort: () => void = () => undefined;
    const record: ReceivedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body: {},
      stream: false,
      aborted: false,
      abortedSignal: new Promise<void>((resolve) => (onAbort = resolve)),
      ...(route.model !== undefined ? { model: route.model } : {}),
    };
    res.on('close', () => {
      if (!res.writableFinished) {
        record.aborted = true;
        onAbort();
      }
    });
    this.requests.push(record);
    const common = this.behavior.responseHeaders();

    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return this.reject(res, 400, `body is not JSON: ${raw.slice(0, 80)}`, common);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return this.reject(res, 400, 'body is not a JSON object', common);
    record.body = parsed as Record<string, unknown>;
    record.stream = this.behavior.isStream(record.body, route);

    const headerProblem = this.behavior.checkHeaders(req.headers, url, this.apiKey);
    if (headerProblem) return this.reject(res, headerProblem.status, headerProblem.message, common);
    const findings = this.behavior.validate(record.body, route, req.headers);
    if (findings.length > 0) return this.reject(res, 400, `request rejected by the provider schema: ${findings.join('; ')}`, common);

    const reply = this.replies.shift() ?? {};
    const headers = { ...common, ...(reply.headers ?? {}) };
    if (reply.hang) return; // never answer; `res.on('close')` records the client's disconnect
    if (reply.error) {
      if (reply.error.retryAfter !== undefined) headers['retry-after'] = reply.error.retryAfter;
      return sendJson(res, reply.error.status, reply.error.body ?? this.behavior.errorBody(reply.error.status, reply.error.message ?? 'Upstream failure.'), headers);
    }
    if (reply.rawAnswer) {
      res.writeHead(200, { ...headers, 'content-type': reply.rawAnswer.contentType });
      res.end(reply.rawAnswer.body);
      return;
    }
    const fixture = reply.fixture ?? 'text';
    if (!record.stream) {
      const body = JSON.parse(readFixture(this.behavior.name, `${fixture}.json`)) as Record<string, unknown>;
      return sendJson(res, 200, reply.transformData ? reply.transformData(body) : body, headers);
    }
    await this.stream(res, splitEvents(readFixture(this.behavior.name, `${fixture}.sse`)), reply, headers);
  }

  private reject(res: ServerResponse, status: number, message: string, headers: Record<string, string>): void {
    this.violations.push(`${this.behavior.name}: ${message}`);
    sendJson(res, status, this.behavior.errorBody(status, message), headers);
  }

  private async stream(res: ServerResponse, events: string[], reply: FakeReply, headers: Record<string, string>): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
    res.flushHeaders();
    for (let i = 0; i < events.length; i++) {
      if (res.destroyed) return;
      if (reply.failAfterEvents !== undefined && i === reply.failAfterEvents) {
        res.end(this.behavior.streamErrorEvent('The upstream model failed mid-stream.'));
        return;
      }
      if (reply.stallAfterEvents !== undefined && i === reply.stallAfterEvents) return;
      if (reply.cutAfterEvents !== undefined && i === reply.cutAfterEvents) break;
      if (reply.resetAfterEvents !== undefined && i === reply.resetAfterEvents) {
        res.socket?.resetAndDestroy();
        return;
      }
      if (reply.malformedAfterEvents !== undefined && i === reply.malformedAfterEvents) res.write(`${/^event: (\S+)/m.exec(events[i]!)?.[0] ?? ''}\ndata: {"truncated": \n\n`.replace(/^\n/, ''));
      res.write(transformEvent(events[i]!, reply.transformData));
      if (i === 0 && reply.holdAfterFirstEvent) await reply.holdAfterFirstEvent;
      if (reply.eventDelayMs) await new Promise((r) => setTimeout(r, reply.eventDelayMs));
    }
    res.end();
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The text of a recorded fixture (located from the repo root: tests also run from dist/). */
export function readFixture(dialect: string, file: string): string {
  return readFileSync(path.resolve(process.cwd(), 'test/fixtures/text-upstreams', dialect, file), 'utf8');
}

/** Splits an SSE fixture into whole events, each ending with its blank line. */
export function splitEvents(text: string): string[] {
  return text.replace(/\r\n/g, '\n').split(/\n\n+/).map((e) => e.trim()).filter((e) => e.length > 0).map((e) => `${e}\n\n`);
}

function transformEvent(event: string, transform: FakeReply['transformData']): string {
  if (!transform) return event;
  return event.replace(/^data: (\{.*\})$/m, (_all, json: string) => `data: ${JSON.stringify(transform(JSON.parse(json) as Record<string, unknown>))}`);
}
