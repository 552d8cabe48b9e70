import type { RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Writable } from 'node:stream';

let loading: Promise<{ inject: typeof import('light-my-request').inject }> | undefined;

/** A request made in memory. */
export interface InjectedRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  /** The client address its socket reports (the access log's, rate limits' and traces' client). */
  remoteAddress: string;
  body: string;
}

/** The answer of an injected request: its head, and its body as the handler writes it. */
export interface InjectedAnswer {
  status: number;
  header(name: string): string | undefined;
  body: AsyncIterable<Buffer>;
}

/**
 * Sends one request to `listener` (the app's request handler) in this process: the request and
 * its response are made in memory by light-my-request (fastify's inject), with no socket and no
 * connection, so the request runs every step a request from the network runs. Resolves once the
 * answer's head is written; its body streams as the handler writes it. Aborting `signal` ends
 * the response as a client that went away would (it closes before it finished). Loaded on
 * first use (the Responses API's WebSocket mode is its only user).
 */
export async function injectRequest(listener: RequestListener, request: InjectedRequest, signal: AbortSignal): Promise<InjectedAnswer> {
  const { inject } = await (loading ??= import('light-my-request'));
  let response: ServerResponse | undefined;
  const dispatch: RequestListener = (req, res) => {
    response = res;
    // light-my-request's own sink acknowledges each write a turn later, so at the response's
    // 'close' the last chunk would still be pending and the request would read as cut short
    // (track-request.ts). This sink drops the bytes at once, as the client has them already.
    res.detachSocket(res.socket!);
    res.assignSocket(discard());
    listener(req, res);
  };
  signal.addEventListener('abort', () => response?.destroy(), { once: true });
  const answer = await inject(dispatch, {
    method: request.method, url: request.path, headers: request.headers, remoteAddress: request.remoteAddress,
    payload: request.body, payloadAsStream: true, validate: false,
  });
  return {
    status: answer.statusCode,
    header: (name) => {
      const value = answer.headers[name.toLowerCase()];
      return value === undefined ? undefined : String(value);
    },
    body: answer.stream(),
  };
}

/** A socket stand-in that takes the response's wire bytes and drops them. */
function discard(): Socket {
  return new Writable({ write: (_chunk, _encoding, done) => done() }) as unknown as Socket;
}
