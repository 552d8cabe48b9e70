import Koa, { type ParameterizedContext } from 'koa';
import type { AppState } from '../calls/state.js';

type Context = ParameterizedContext<AppState>;
type HandleRequest = (this: Koa<AppState>, ctx: Context, fnMiddleware: (ctx: Context) => Promise<void>) => Promise<void>;

// Koa's own request handler (not in its type definitions, stable across Koa 2 and 3).
const koaHandleRequest = (Koa.prototype as unknown as { handleRequest: HandleRequest }).handleRequest;
const DONE: Promise<void> = Promise.resolve();

/**
 * Koa without a finished-response watcher on the answers the gateway writes itself. Koa's
 * handleRequest attaches on-finished to every response before the middleware runs (listeners on
 * the response and its socket: ~1.6 KB allocated and ~6 µs of CPU per request here), only to
 * hand a late socket error to ctx.onerror, which does nothing once the answer is written (the
 * app is silent). Text calls write their answers and streams themselves (`ctx.respond = false`)
 * and record the end of the response on its own 'close' (track-request.ts). Every other answer
 * (errors, model lists, probes, admin) goes through Koa's handleRequest once the middleware is
 * done, with the status the middleware set, so respond() and its watcher run as before.
 */
export class GatewayKoa extends Koa<AppState> {
  handleRequest(ctx: Context, fnMiddleware: (ctx: Context) => Promise<void>): Promise<void> {
    const res = ctx.res;
    res.statusCode = 404;
    return fnMiddleware(ctx).then(
      () => {
        if (ctx.respond === false) return undefined;
        // Koa's handler resets the status to 404 before it runs the middleware: restore it there.
        const status = res.statusCode;
        return koaHandleRequest.call(this, ctx, () => {
          res.statusCode = status;
          return DONE;
        });
      },
      (err: unknown) => ctx.onerror(err as Error),
    );
  }
}
