import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { RuntimeStore } from '../compile/runtime-store.js';
import { meterRealtimeSession } from '../billing/realtime-meter.js';
import { createRealtimeSigner, REALTIME_WS_PATH } from '../store/realtime-signer.js';
import { GatewayError, errors } from '../errors/gateway-error.js';
import { renderError } from './envelope.js';
import type { SharedServices } from './services.js';
import { openKeySpend, openRealtimeHold } from './steps/key-policy.js';
import type { SpendHold } from '../billing/spend-hold.js';

/**
 * Accepts WebSocket upgrades on the gateway's realtime path. The signed token is checked
 * before anything else happens: a tampered or expired URL gets a plain 401 and no socket, and
 * no upstream connection is ever opened for it.
 */
export function attachRealtime(server: Server, store: RuntimeStore, shared: SharedServices, accepting: () => boolean = () => true): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  const verifier = createRealtimeSigner(shared.realtimeSecret, 'http://localhost');
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A draining gateway opens no new sessions (src/server/drain.ts).
    if (!accepting()) return refuse(socket, 503, 'Service Unavailable');
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== REALTIME_WS_PATH) return refuse(socket, 404, 'Not Found');
    const claims = verifier.verify(url.searchParams.get('token') ?? '');
    if (!claims) return refuse(socket, 401, 'Unauthorized');
    const entry = store.current().models.get(claims.model);
    const open = entry?.provider.impl.openRealtime;
    if (!entry || !open) return refuse(socket, 404, 'Not Found');
    void realtimeHold(shared, store, claims.owner).then((hold) => {
      // A managed key revoked or expired since the URL was signed: no session.
      if (hold === null) return refuse(socket, 401, 'Unauthorized');
      wss.handleUpgrade(req, socket, head, (ws) => {
        // Budget and duration end the session whichever provider serves it (issue 5).
        meterRealtimeSession(ws, claims, entry.pricing, hold);
        open(ws, claims, { providerName: entry.provider.name, provider: entry.provider.spec, apiKey: entry.provider.apiKey, baseUrl: entry.provider.baseUrl, upstreamModel: entry.upstream });
      });
    }, () => refuse(socket, 401, 'Unauthorized'));
  });
  return wss;
}

/**
 * The spend hold of the key that owns a session: a YAML/env key by hash, a managed key
 * (`key:<id>`) from the database. Null when that managed key is no longer valid.
 */
async function realtimeHold(shared: SharedServices, store: RuntimeStore, owner: string): Promise<SpendHold | undefined | null> {
  const managed = /^key:(.+)$/.exec(owner);
  if (!managed || !shared.usageLedger) return openRealtimeHold(shared, store.current().keys, owner);
  const found = await shared.usageLedger.managedKeys.lookupById(managed[1]!);
  return found.status === 'ok' ? openKeySpend(found.entry, owner, shared) : null;
}

/** Answers a refused upgrade with the default error envelope (the one writer of error bodies). */
function refuse(socket: Duplex, status: 401 | 404 | 503, text: string): void {
  const error = status === 401
    ? new GatewayError(401, 'authentication_error', 'invalid_session_token', 'Invalid or expired realtime session URL.')
    : status === 503
      ? new GatewayError(503, 'api_error', 'shutting_down', 'The gateway is shutting down; open the session again.')
      : errors.notFound('Not found.');
  const body = JSON.stringify(renderError(error, 'default').body);
  socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}
