import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { RuntimeStore } from '../compile/runtime-store.js';
import { meterRealtimeSession } from '../billing/realtime-meter.js';
import { createRealtimeSigner, REALTIME_WS_PATH, tokenNonce } from '../store/realtime-signer.js';
import { GatewayError, errors } from '../errors/gateway-error.js';
import { renderError } from './envelope.js';
import type { SharedServices } from './services.js';
import { openRealtimeHold } from './steps/key-policy.js';

/**
 * Accepts WebSocket upgrades on the gateway's realtime path. The sealed token is checked
 * before anything else happens: a tampered, expired or already used URL gets a plain 401 and
 * no socket, and no upstream connection is ever opened for it. A URL opens one session only:
 * its nonce is consumed in the shared store (so across every instance), which also bounds the
 * session's total connected time by its `max_duration_seconds`.
 */
export function attachRealtime(server: Server, store: RuntimeStore, shared: SharedServices): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  const verifier = createRealtimeSigner(shared.realtimeSecret, 'http://localhost');
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== REALTIME_WS_PATH) return refuse(socket, 404, 'Not Found');
    const token = url.searchParams.get('token') ?? '';
    const claims = verifier.verify(token);
    if (!claims) return refuse(socket, 401, 'Unauthorized');
    const entry = store.current().models.get(claims.model);
    const open = entry?.provider.impl.openRealtime;
    if (!entry || !open) return refuse(socket, 404, 'Not Found');
    const accept = () => wss.handleUpgrade(req, socket, head, (ws) => {
      // Budget and duration end the session whichever provider serves it (issue 5).
      meterRealtimeSession(ws, claims, entry.pricing, openRealtimeHold(shared, store.current().keys, claims.owner));
      open(ws, claims, { providerName: entry.provider.name, provider: entry.provider.spec, apiKey: entry.provider.apiKey, baseUrl: entry.provider.baseUrl, upstreamModel: entry.upstream });
    });
    const ttl = Math.max(1, claims.exp - Math.floor(Date.now() / 1000) + 1);
    shared.nonces.consume(tokenNonce(token), ttl).then((fresh) => {
      if (!fresh) return refuse(socket, 401, 'Unauthorized', 'This realtime session URL was already used; create a new session.');
      accept();
    }, (e: unknown) => refuse(socket, 503, 'Service Unavailable', e instanceof GatewayError ? e.message : undefined));
  });
  return wss;
}

/** Answers a refused upgrade with the default error envelope (the one writer of error bodies). */
function refuse(socket: Duplex, status: 401 | 404 | 503, text: string, message?: string): void {
  const error = status === 401
    ? new GatewayError(401, 'authentication_error', 'invalid_session_token', message ?? 'Invalid or expired realtime session URL.')
    : status === 503 ? new GatewayError(503, 'api_error', 'store_unavailable', message ?? 'The shared state store is unavailable; retry shortly.')
    : errors.notFound('Not found.');
  const body = JSON.stringify(renderError(error, 'default').body);
  socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
