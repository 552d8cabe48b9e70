import type { IncomingMessage, RequestListener } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import { serveResponsesSocket, type TurnRunner } from '../calls/responses-socket.js';
import type { RuntimeStore } from '../compile/runtime-store.js';
import { errors, isGatewayError, type GatewayError } from '../errors/gateway-error.js';
import { firstHeader } from '../errors/upstream-failure.js';
import type { SharedServices } from './services.js';
import { presentedKey } from './steps/authenticate.js';
import { findClientKey } from '../calls/caller-key.js';
import { injectRequest } from './inject-request.js';
import { wsModule } from '../upstream/ws-module.js';

/** The path of the Responses API, where WebSocket mode lives too. */
export const RESPONSES_WS_PATH = '/v1/responses';

/**
 * Headers of the upgrade request every turn carries into the pipeline: the caller's key, its
 * user agent, and what the client address is read from (X-Forwarded-For with the peer, per
 * `server.trusted_proxies`). Each turn gets its own request id.
 */
const FORWARDED_HEADERS = ['authorization', 'x-api-key', 'user-agent', 'x-forwarded-for', 'host'] as const;

/**
 * Accepts WebSocket upgrades of `/v1/responses` (WebSocket mode, src/calls/responses-socket.ts).
 * The key is checked on the upgrade request, before any socket exists: none, or one the gateway
 * does not know, is a plain 401 with the usual error body. Each turn then runs as a streamed
 * POST /v1/responses with the upgrade's key and client address through `listener`, the app's
 * own request handler, in this process (inject-request.ts: no loopback connection), so it passes
 * through the one call pipeline as it is: the key's policy (rate limits, allowed models,
 * budgets), body limits and validation, routing, stored responses, metering and the access log.
 * A key revoked mid-session refuses the next turn.
 */
export function createResponsesUpgrade(listener: RequestListener, store: RuntimeStore, shared: SharedServices): ResponsesUpgrade {
  let wss: WebSocketServer | undefined;
  const socketServer = (): WebSocketServer => (wss ??= new (wsModule().WebSocketServer)({ noServer: true, maxPayload: store.current().config.limits.body_bytes }));
  return {
    accept(req, socket, head, refuse) {
      const presented = presentedKey(req.headers.authorization ?? '', firstHeader(req.headers['x-api-key']) ?? '');
      if (!presented) return refuse(socket, errors.missingKey());
      findClientKey(store.current(), shared, presented).then((key) => {
        if (!key) return refuse(socket, errors.invalidKey());
        socketServer().handleUpgrade(req, socket, head, (ws) => serveResponsesSocket(ws, inProcessTurns(listener, req)));
      }, (e: unknown) => refuse(socket, isGatewayError(e) ? e : errors.invalidKey()));
    },
    close() {
      // After the drain: turns in flight were requests it waited for, answered or ended by now.
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

/** Runs each turn as a streamed POST /v1/responses through `listener`, as the upgrade's client. */
function inProcessTurns(listener: RequestListener, upgrade: IncomingMessage): TurnRunner {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
  for (const name of FORWARDED_HEADERS) {
    const value = firstHeader(upgrade.headers[name]);
    if (value !== undefined) headers[name] = value;
  }
  const remoteAddress = upgrade.socket.remoteAddress ?? '';
  return async (body, signal) => {
    const answer = await injectRequest(listener, { method: 'POST', path: RESPONSES_WS_PATH, headers, remoteAddress, body: JSON.stringify(body) }, signal);
    return { status: answer.status, contentType: answer.header('content-type') ?? '', body: answer.body };
  };
}
