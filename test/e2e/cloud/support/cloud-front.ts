/**
 * What the fake cloud fronts (Vertex, Azure) share: a server on 127.0.0.1 that reads each
 * request whole, and the log tests read: calls accepted, requests refused for their
 * credentials (401), and requests the platform would have refused for their shape.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readAll, sendJson } from './forward.js';

/** A started front and what it saw. */
export interface CloudFront<C> {
  readonly url: string;
  /** Calls that carried valid credentials. */
  readonly calls: C[];
  /** Calls refused for their credentials (401). */
  readonly unauthenticated: number;
  /** Requests the platform would have refused for their shape. */
  readonly violations: string[];
  reset(): void;
  close(): Promise<void>;
}

/** One request as a front's handler gets it. */
export interface FrontExchange<C> {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly raw: Buffer;
  readonly url: URL;
  readonly calls: C[];
  /** Answers 400 in the platform's words and records the violation. */
  bad(why: string): void;
  /** Answers 401 with the platform's body and counts the refusal. */
  refuse(body: unknown): void;
}

/**
 * Starts a front: `badBody` is the platform's 400 body for a violation, `serve` answers each
 * request (it may be async; a throw destroys the connection).
 */
export async function startCloudFront<C>(badBody: (why: string) => unknown, serve: (x: FrontExchange<C>) => void | Promise<void>): Promise<CloudFront<C>> {
  const calls: C[] = [];
  const violations: string[] = [];
  let unauthenticated = 0;
  const server: Server = createServer((req, res) => {
    void readAll(req).then((raw) => serve({
      req, res, raw, calls,
      url: new URL(req.url ?? '/', 'http://front'),
      bad: (why) => {
        violations.push(why);
        sendJson(res, 400, badBody(why));
      },
      refuse: (body) => {
        unauthenticated++;
        sendJson(res, 401, body);
      },
    })).catch(() => res.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    get unauthenticated() { return unauthenticated; },
    violations,
    reset: () => { calls.length = 0; violations.length = 0; unauthenticated = 0; },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
