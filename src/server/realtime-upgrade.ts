import type { IncomingMessage, RequestListener, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { RuntimeStore } from '../compile/runtime-store.js';
import { meterRealtimeSession } from '../billing/realtime-meter.js';
import { createRealtimeSigner, REALTIME_WS_PATH, tokenNonce } from '../store/realtime-signer.js';
import { GatewayError, errors } from '../errors/gateway-error.js';
import { shuttingDown, type RealtimeSockets } from './drain.js';
import { renderError } from './envelope.js';
import type { SharedServices } from './services.js';
import { sessionHold } from '../calls/caller-key.js';
import type { SpendHold } from '../billing/spend-hold.js';
import { wsModule } from '../upstream/ws-module.js';
import { createResponsesUpgrade, RESPONSES_WS_PATH } from './responses-upgrade.js';

/**
 * Accepts WebSocket upgrades on the gateway's realtime path. The sealed token is checked
 * before anything else happens: a tampered, expired or already used URL gets a plain 401 and
 * no socket, and no upstream connection is ever opened for it. A URL opens one session only:
 * its nonce is consumed in the shared store (so across every instance), which also bounds the
 * session's total connected time by its `max_duration_seconds`. A draining gateway opens no
 * new sessions (src/server/drain.ts).
 */
export function attachRealtime(server: Server, store: RuntimeStore, shared: SharedServices, options: RealtimeOptions): RealtimeSockets {
  // Made on the first session the gateway accepts (ws-module.ts: most gateways never open one).
  let wss: WebSocketServer | undefined;
  const socketServer = () => (wss ??= new (wsModule().WebSocketServer)({ noServer: true, maxPayload: 16 * 1024 * 1024 }));
  const verifier = createRealtimeSigner(shared.realtimeSecret, 'http://localhost');
  // WebSocket mode of /v1/responses (responses-upgrade.ts) shares this listener.
  const responses = createResponsesUpgrade(options.listener, store, shared);
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node removes its own socket error listener before it emits 'upgrade': without this one a
    // client resetting the connection (ECONNRESET) while it is answered would throw an unhandled
    // 'error' and end the process. ws adds its own once it takes the socket; this stays harmless.
    socket.on('error', () => socket.destroy());
    if (!options.accepting()) return refuse(socket, shuttingDown('The gateway is shutting down; open the session again.'));
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === RESPONSES_WS_PATH) return responses.accept(req, socket, head, refuse);
    if (url.pathname !== REALTIME_WS_PATH) return refuse(socket, errors.notFound('Not found.'));
    const token = url.searchParams.get('token') ?? '';
    const claims = verifier.verify(token);
    if (!claims) return refuse(socket, invalidSession());
    const entry = store.current().models.get(claims.model);
    const open = entry?.provider.impl.openRealtime;
    if (!entry || !open) return refuse(socket, errors.notFound('Not found.'));
    const ttl = Math.max(1, claims.exp - Math.floor(Date.now() / 1000) + 1);
    void shared.nonces.consume(tokenNonce(token), ttl).then(async (fresh) => {
      if (!fresh) return refuse(socket, invalidSession('This realtime session URL was already used; create a new session.'));
      let hold: SpendHold | undefined | null;
      try {
        hold = await sessionHold(shared, store.current().keys, claims.owner);
      } catch {
        return refuse(socket, invalidSession());
      }
      // A managed key revoked or expired since the URL was signed: no session.
      if (hold === null) return refuse(socket, invalidSession());
      socketServer().handleUpgrade(req, socket, head, (ws) => {
        // Budget and duration end the session whichever provider serves it (issue 5).
        meterRealtimeSession(ws, claims, entry.pricing, hold);
        open(ws, claims, { providerName: entry.provider.name, provider: entry.provider.spec, apiKey: entry.provider.apiKey, baseUrl: entry.provider.baseUrl, upstreamModel: entry.upstream, access: entry.provider.access });
      });
    }, (e: unknown) => refuse(socket, new GatewayError(503, 'api_error', 'store_unavailable', e instanceof GatewayError ? e.message : 'The shared state store is unavailable; retry shortly.')));
  });
  return {
    // Responses WebSocket-mode sockets are not counted: their turns are requests (made in memory)
    // the drain already waits for, and an idle socket must not hold a shutdown for the grace period.
    get clients() { return wss?.clients ?? NO_SOCKETS; },
    close() {
      wss?.close();
      responses.close();
    },
  };
}

/** How the upgrades of one server are taken. */
export interface RealtimeOptions {
  /** The app's request handler: WebSocket-mode turns of /v1/responses run through it. */
  listener: RequestListener;
  /** False while the server does not take new sessions (draining). */
  accepting: () => boolean;
}

const NO_SOCKETS: ReadonlySet<WebSocket> = new Set();

function invalidSession(message = 'Invalid or expired realtime session URL.'): GatewayError {
  return new GatewayError(401, 'authentication_error', 'invalid_session_token', message);
}


const REASONS: Record<number, string> = { 401: 'Unauthorized', 404: 'Not Found', 503: 'Service Unavailable' };

/** Answers a refused upgrade with the default error envelope (the one writer of error bodies). */
function refuse(socket: Duplex, error: GatewayError): void {
  const rendered = renderError(error, 'default');
  const body = JSON.stringify(rendered.body);
  // The error's own headers (Retry-After on a 503) go out too; the connection always closes.
  const extra = Object.entries(rendered.headers).filter(([name]) => name.toLowerCase() !== 'connection').map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${rendered.status} ${REASONS[rendered.status] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`);
}
