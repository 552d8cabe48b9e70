import { Agent as HttpAgent, type ClientRequest, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import { createProxyMiddleware, type Plugin } from 'http-proxy-middleware';
import type { ProxyPlan } from '../../compile/runtime.js';
import { errors, isGatewayError, type GatewayError } from '../../errors/gateway-error.js';
import { authorizeForwarded } from './forward-credentials.js';
import { answerHeaders } from './proxy-headers.js';

/**
 * What one forwarded exchange sent and received, counted as the bytes pass (the request's
 * record is one: its access log line and ledger row read it when the response closes).
 */
export interface ExchangeTotals {
  /** Body bytes read from the client and sent upstream. */
  requestBytes?: number;
  /** Body bytes of the upstream answer passed to the client. */
  responseBytes?: number;
}

/** The proxy of one pass-through route: created once when its pipeline is built. */
export interface ProxyEngine {
  /**
   * Forwards a request whose URL and headers are already the upstream's, with the provider's
   * credentials put on first (./forward-credentials.ts: a signer that covers the body gets it
   * whole). Resolves when the upstream's status and headers have been passed on (the body then
   * streams on its own); rejects with a GatewayError (502 `upstream_unreachable` or
   * `upstream_auth_error`, 504 `upstream_timeout`, 413 for a body too large to sign) when the
   * request failed before an answer, so the caller answers in the route's envelope.
   * `totals` is counted into as bytes pass; `hooks.answered` runs as the upstream's status
   * arrives (before any byte of it goes out), `hooks.ended` once the response is over,
   * whatever happened.
   */
  forward(req: IncomingMessage, res: ServerResponse, totals: ExchangeTotals, hooks: ExchangeHooks): Promise<void>;
}

/** What the caller hears of one exchange (each called once at most, synchronously). */
export interface ExchangeHooks {
  /** The upstream's status and headers arrived (as they will be passed on). */
  answered(headers: IncomingHttpHeaders): void;
  ended(answered: boolean): void;
}

/** Per-request state the proxy's event handlers reach through the request. */
interface Exchange {
  totals: ExchangeTotals;
  /** The body as read to be signed: sent as it is instead of piping the (consumed) request. */
  body?: Buffer;
  hooks: ExchangeHooks;
  answered: boolean;
  /** performance.now() when the exchange began (the total deadline counts from it). */
  startedAt: number;
  timedOut?: number;
  /** Cuts the upstream request (set once it exists). */
  abortUpstream?: (e: Error) => void;
  resolve(): void;
  reject(e: GatewayError): void;
  timers: NodeJS.Timeout[];
}

/**
 * Builds the proxy of a plan on http-proxy-middleware: bodies are piped both ways (no
 * buffering; backpressure is the pipes'), `Host` is the upstream's, one keep-alive agent per
 * route. Deadlines from the provider's `routing.timeouts`: `connect_ms` until a socket is
 * connected, `idle_ms` of silence either way, `first_byte_ms` from the end of the request
 * body to the answer's status, `total_ms` for the whole exchange.
 */
export function createProxyEngine(plan: ProxyPlan): ProxyEngine {
  const exchanges = new WeakMap<IncomingMessage, Exchange>();
  const secure = plan.origin.startsWith('https:');
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const { connectMs, firstByteMs, idleMs, totalMs } = plan.timeouts;

  const events: Plugin = (proxy) => {
    proxy.on('proxyReq', (proxyReq: ClientRequest, req: IncomingMessage) => {
      const x = exchanges.get(req);
      if (!x) return;
      watchRequest(x, proxyReq, req);
      // http-proxy pipes the request on after this event; a body read to be signed has already
      // ended it, so the pipe only ends proxyReq: the bytes go here, as the library's own
      // fixRequestBody writes a parsed body. 'proxyReq' comes with the socket, before that end.
      if (x.body) {
        if (proxyReq.writableEnded) proxyReq.destroy(new Error('request ended before its signed body was written'));
        else proxyReq.write(x.body);
        x.totals.requestBytes = x.body.length;
      }
    });
    proxy.on('proxyRes', (proxyRes: IncomingMessage, req: IncomingMessage, res: ServerResponse) => {
      const x = exchanges.get(req);
      if (!x) return;
      x.answered = true;
      clearTimers(x);
      answerHeaders(proxyRes.headers);
      x.hooks.answered(proxyRes.headers);
      proxyRes.on('data', (chunk: Buffer) => { x.totals.responseBytes = (x.totals.responseBytes ?? 0) + chunk.length; });
      // An upstream that breaks off mid-answer breaks the client's answer off too (never a hang).
      proxyRes.once('close', () => { if (!proxyRes.complete) res.destroy(); });
      // The answer streams on: the whole-exchange deadline still holds.
      x.timers.push(setTimeout(() => { x.timedOut = totalMs; proxyRes.destroy(); }, remaining(x, totalMs)).unref());
      x.resolve();
    });
    proxy.on('error', (err: Error, req: IncomingMessage, res: ServerResponse | Socket) => {
      const x = exchanges.get(req);
      if (!x) return;
      clearTimers(x);
      // Headers already out: the answer can only be cut short.
      if ('headersSent' in res && res.headersSent) {
        res.destroy(err);
        return;
      }
      x.reject(x.timedOut !== undefined ? errors.upstreamTimeout(plan.provider, x.timedOut) : errors.upstreamUnreachable(plan.provider));
    });
  };

  const middleware = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: plan.origin,
    changeOrigin: true,
    xfwd: false,
    agent,
    ejectPlugins: true,
    plugins: [events],
  });

  function remaining(x: Exchange, total: number): number {
    return Math.max(1, total - (performance.now() - x.startedAt));
  }

  function watchRequest(x: Exchange, proxyReq: ClientRequest, req: IncomingMessage): void {
    x.abortUpstream = (e) => proxyReq.destroy(e);
    const fail = (ms: number) => () => {
      x.timedOut = ms;
      proxyReq.destroy(new Error('upstream timeout'));
    };
    const socket = proxyReq.socket;
    if (socket && socket.connecting) {
      const connect = setTimeout(fail(connectMs), connectMs).unref();
      x.timers.push(connect);
      socket.once('connect', () => clearTimeout(connect));
    }
    proxyReq.setTimeout(idleMs, fail(idleMs));
    req.on('data', (chunk: Buffer) => { x.totals.requestBytes = (x.totals.requestBytes ?? 0) + chunk.length; });
    proxyReq.once('finish', () => {
      if (!x.answered) x.timers.push(setTimeout(fail(firstByteMs), firstByteMs).unref());
    });
  }

  return {
    forward(req, res, totals, hooks) {
      return new Promise<void>((resolve, reject) => {
        let settled = false;
        const x: Exchange = {
          totals,
          hooks,
          answered: false,
          startedAt: performance.now(),
          timers: [],
          resolve: () => { if (!settled) { settled = true; resolve(); } },
          reject: (e) => { if (!settled) { settled = true; reject(e); } },
        };
        res.once('close', () => {
          clearTimers(x);
          // The client went away before an answer: nothing is left to write.
          x.reject(errors.upstreamUnreachable(plan.provider));
          hooks.ended(x.answered);
        });
        authorizeForwarded(plan, req, res).then((body) => {
          if (settled) return;
          x.body = body;
          // The deadlines count from here: reading a body to sign is the client's time.
          x.startedAt = performance.now();
          exchanges.set(req, x);
          x.timers.push(setTimeout(() => {
            x.timedOut = totalMs;
            if (x.abortUpstream) x.abortUpstream(new Error('upstream timeout'));
            else x.reject(errors.upstreamTimeout(plan.provider, totalMs));
          }, totalMs).unref());
          void middleware(req, res, (err?: unknown) => x.reject(err ? errors.upstreamUnreachable(plan.provider) : errors.internal()));
        }, (e: unknown) => x.reject(isGatewayError(e) ? e : errors.internal()));
      });
    },
  };
}

function clearTimers(x: Exchange): void {
  for (const t of x.timers) clearTimeout(t);
  x.timers.length = 0;
}
