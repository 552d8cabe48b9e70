import type { Server } from 'node:http';
import type { ParameterizedContext } from 'koa';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import { GatewayError } from '../errors/gateway-error.js';
import { writeSseFrame } from '../sse-frame.js';
import { envelopeOf, renderError, type EnvelopeStyle } from './envelope.js';
import type { Lifecycle } from './lifecycle.js';
import type { AppState } from '../calls/state.js';
import { surfaceErrorEvent } from '../calls/stream-error-event.js';

/** Seconds a refused client is asked to wait (another instance usually answers at once). */
const RETRY_AFTER_S = 1;
/** After the grace period: how long ended streams get to flush their error event. */
const FLUSH_MS = 1000;
/** How often idle keep-alive connections are closed while draining. */
const IDLE_SWEEP_MS = 100;

/** The realtime sessions a gateway holds open: what draining and shutdown close. */
export interface RealtimeSockets {
  readonly clients: ReadonlySet<WebSocket>;
  /** Stops accepting sessions (open ones are closed through `clients`). */
  close(): void;
}

/** 503 `shutting_down`: the gateway is draining; the client should retry (elsewhere). */
export function shuttingDown(message = 'The gateway is shutting down; retry the request.'): GatewayError {
  return new GatewayError(503, 'api_error', 'shutting_down', message, undefined, {
    'Retry-After': String(RETRY_AFTER_S),
    Connection: 'close',
  });
}

/**
 * The drain gate (the front step runs it for every request): while draining, every answer
 * closes its connection and a request other than a probe is refused with 503 `shutting_down`
 * (route envelope, `Retry-After`, `Connection: close`). Probes pass: /healthz stays 200 and
 * /readyz says `draining`.
 */
export function refuseWhileDraining(ctx: ParameterizedContext<AppState>, lifecycle: Lifecycle, isProbe: (method: string, path: string) => boolean): void {
  if (lifecycle.state !== 'draining') return;
  // Every answer given while draining closes its connection, so keep-alive clients move on.
  ctx.set('Connection', 'close');
  if (!isProbe(ctx.method, ctx.path)) throw shuttingDown();
}

/** What a drain needs from the running server. */
export interface DrainTarget {
  server: Server;
  wss?: RealtimeSockets;
  lifecycle: Lifecycle;
  logger: Logger;
}

/**
 * Graceful drain: refuse new work at once (readiness 503), close idle keep-alive connections,
 * let requests, streams and realtime sessions in flight finish for up to `graceMs`, then end
 * what is left (streams with their route's error event, unanswered requests with 503
 * `shutting_down`, realtime sessions with close code 1001) and close the listener. Resolves
 * when the server is closed; the caller exits the process.
 */
export async function drainServer(target: DrainTarget, graceMs: number): Promise<void> {
  const { server, wss, lifecycle, logger } = target;
  lifecycle.beginDrain();
  const inFlight = () => lifecycle.inFlight.size + (wss?.clients.size ?? 0);
  logger.info({ in_flight: inFlight(), grace_s: graceMs / 1000 }, 'draining');
  // Requests that started before the drain and have not answered yet close their connection too.
  for (const ctx of lifecycle.inFlight) if (!ctx.res.headersSent) ctx.res.setHeader('Connection', 'close');
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
  try {
    const finished = await waitUntil(() => inFlight() === 0, graceMs);
    if (!finished) {
      logger.warn({ in_flight: inFlight() }, 'grace period over; closing what is left');
      const reason = shuttingDown();
      lifecycle.endGrace(reason);
      for (const ctx of lifecycle.inFlight) endRequest(ctx, reason);
      for (const ws of wss?.clients ?? []) ws.close(1001, 'server shutting down');
      await waitUntil(() => inFlight() === 0, FLUSH_MS);
    }
  } finally {
    clearInterval(sweep);
  }
  for (const ws of wss?.clients ?? []) ws.terminate();
  wss?.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Waits until `done()` holds or `ms` pass; resolves whether it holds. */
function waitUntil(done: () => boolean, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    if (done()) return resolve(true);
    // Polling (only while draining) covers Koa requests and realtime sockets alike.
    const poll = setInterval(() => {
      if (!done()) return;
      clearTimeout(deadline);
      clearInterval(poll);
      resolve(true);
    }, 50);
    const deadline = setTimeout(() => { clearInterval(poll); resolve(done()); }, ms);
  });
}

/**
 * Ends one request the grace period did not let finish, in the client's own terms: an open
 * SSE stream gets its surface's error event (as a stream that failed upstream would), a
 * request not yet answered gets 503 `shutting_down` in its route's envelope, anything else
 * (a body half sent) is cut.
 */
function endRequest(ctx: ParameterizedContext<AppState>, error: GatewayError): void {
  const res = ctx.res;
  if (res.writableEnded || res.destroyed) return;
  const gw = ctx.state.gw as AppState['gw'] | undefined;
  if (!res.headersSent) {
    const style = envelopeOf(gw?.route?.spec.envelope, ctx.path);
    const rendered = renderError(error, style);
    const body = JSON.stringify(rendered.body);
    res.writeHead(rendered.status, { ...rendered.headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  if (!String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) {
    res.destroy();
    return;
  }
  res.end(streamErrorText(ctx, error));
}

/** The route surface's own error event; a plain `event: error` for streams without a surface. */
function streamErrorText(ctx: ParameterizedContext<AppState>, error: GatewayError): string {
  const gw = ctx.state.gw as AppState['gw'] | undefined;
  const style: EnvelopeStyle = gw?.route?.spec.envelope ?? 'default';
  return surfaceErrorEvent(gw, error) ?? writeSseFrame({ event: 'error', data: JSON.stringify(renderError(error, style).body) });
}
