import { request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { serveResponsesSocket, type TurnError, type TurnOutcome, type TurnRunner } from '../calls/responses-socket.js';
import type { RuntimeStore } from '../compile/runtime-store.js';
import { errors, isGatewayError, type GatewayError } from '../errors/gateway-error.js';
import { firstHeader } from '../errors/upstream-failure.js';
import { splitSseBlocks } from '../upstream/sse-blocks.js';
import type { SharedServices } from './services.js';
import { findClientKey, presentedKey } from './steps/authenticate.js';
import { wsModule } from '../upstream/ws-module.js';

/** The path of the Responses API, where WebSocket mode lives too. */
export const RESPONSES_WS_PATH = '/v1/responses';

/** Headers of the upgrade request every turn carries into the pipeline (the caller's key; each turn gets its own request id). */
const FORWARDED_HEADERS = ['authorization', 'x-api-key', 'user-agent'] as const;

/**
 * Accepts WebSocket upgrades of `/v1/responses` (WebSocket mode, src/calls/responses-socket.ts).
 * The key is checked on the upgrade request, before any socket exists: none, or one the gateway
 * does not know, is a plain 401 with the usual error body. Each turn then runs as a streamed
 * POST /v1/responses sent to this same server with the upgrade's key, so it passes through the
 * one call pipeline as it is: the key's policy (rate limits, allowed models, budgets), body
 * limits and validation, routing, stored responses, metering and the request log. A key revoked
 * mid-session refuses the next turn.
 */
export function createResponsesUpgrade(server: Server, store: RuntimeStore, shared: SharedServices): ResponsesUpgrade {
  let wss: WebSocketServer | undefined;
  const socketServer = (): WebSocketServer => (wss ??= new (wsModule().WebSocketServer)({ noServer: true, maxPayload: store.current().config.limits.body_bytes }));
  return {
    accept(req, socket, head, refuse) {
      const presented = presentedKey(req.headers.authorization ?? '', firstHeader(req.headers['x-api-key']) ?? '');
      if (!presented) return refuse(socket, errors.missingKey());
      findClientKey(store.current(), shared, presented).then((key) => {
        if (!key) return refuse(socket, errors.invalidKey());
        socketServer().handleUpgrade(req, socket, head, (ws) => serveResponsesSocket(ws, loopbackTurns(server, req)));
      }, (e: unknown) => refuse(socket, isGatewayError(e) ? e : errors.invalidKey()));
    },
    close() {
      // After the drain: turns in flight were HTTP requests, answered or ended by now.
      for (const ws of wss?.clients ?? []) ws.close(1001, 'server shutting down');
      wss?.close();
    },
  };
}

/** The WebSocket mode of one gateway. */
export interface ResponsesUpgrade {
  /** Takes an upgrade of RESPONSES_WS_PATH (its socket already has an error listener). */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer, refuse: (socket: Duplex, error: GatewayError) => void): void;
  /** Closes every socket (1001) and stops accepting. */
  close(): void;
}

/** Runs each turn as a streamed POST /v1/responses to this server, with the upgrade's headers. */
function loopbackTurns(server: Server, upgrade: IncomingMessage): TurnRunner {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = firstHeader(upgrade.headers[name]);
    if (value !== undefined) headers[name] = value;
  }
  return (body, signal) => new Promise<TurnOutcome>((resolve, reject) => {
    const address = server.address() as AddressInfo;
    const payload = Buffer.from(JSON.stringify(body));
    const req = httpRequest({
      host: loopbackHost(address), port: address.port, method: 'POST', path: RESPONSES_WS_PATH, signal,
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length), accept: 'text/event-stream' },
    }, (res) => {
      res.on('error', () => undefined); // an abort mid-turn surfaces through the iterator
      if (res.statusCode === 200 && String(res.headers['content-type']).startsWith('text/event-stream')) return resolve({ kind: 'events', events: eventData(res) });
      void readAll(res).then((text) => resolve({ kind: 'refused', status: res.statusCode ?? 502, error: errorOf(text) }), reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Where this server is reached from itself. */
function loopbackHost(address: AddressInfo): string {
  if (address.address === '0.0.0.0' || address.address === '::') return address.family === 'IPv6' ? '::1' : '127.0.0.1';
  return address.address;
}

/** The data of each event of an SSE answer (comments, such as the cost note, and `[DONE]` left out). */
async function* eventData(res: IncomingMessage): AsyncIterable<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res as AsyncIterable<string>) {
    const { frames, rest } = splitSseBlocks(text + chunk);
    text = rest;
    for (const frame of frames) if (frame.data.startsWith('{')) yield frame.data;
  }
}

async function readAll(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const chunk of res as AsyncIterable<string>) text += chunk;
  return text;
}

/** The `error` of a refused turn's body, in the WebSocketErrorEvent form. */
function errorOf(text: string): TurnError {
  try {
    const error = (JSON.parse(text) as { error?: Partial<TurnError> & { code?: string | null } }).error;
    if (error && typeof error.message === 'string') {
      const type = error.type ?? 'api_error';
      return { type, code: error.code ?? type, message: error.message, param: error.param ?? null };
    }
  } catch {
    // Not the gateway's JSON envelope: described below.
  }
  return { type: 'upstream_error', code: 'upstream_error', message: 'The response could not be started.', param: null };
}
