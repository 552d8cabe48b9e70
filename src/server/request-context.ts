import { basename } from 'node:path';
import type { Middleware } from 'koa';
import { routeKey, type CompiledRoute } from '../compile/runtime.js';
import type { RuntimeStore } from '../compile/runtime-store.js';
import { createRealtimeSigner } from '../store/realtime-signer.js';
import type { AppState } from './state.js';
import type { SharedServices } from './services.js';

/**
 * First step of every route: captures the current runtime once, gives the request an id and
 * an AbortController that fires when the client goes away before the answer is complete.
 */
export function requestContext(route: CompiledRoute, store: RuntimeStore, shared: SharedServices): Middleware<AppState> {
  const key = routeKey(route.spec);
  // The record names the route by its file name (`chat-completions.yaml`), not the path it was read from.
  const routeName = basename(route.spec.file);
  return async (ctx, next) => {
    const runtime = store.current();
    const record = ctx.state.record;
    const requestId = record.requestId;
    record.route = routeName;
    record.operation = route.spec.operation;
    const abort = new AbortController();
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) abort.abort();
    });
    const base = runtime.config.server.public_url ?? `${ctx.protocol}://${ctx.host}`;
    ctx.state.gw = {
      runtime,
      // After a reload the route's validator and parameter sets come from the new runtime.
      route: runtime.routesByKey.get(key) ?? route,
      services: {
        files: shared.files,
        jobs: shared.jobs,
        fetchMedia: shared.fetchMedia,
        // Built on first use: only realtime calls sign URLs.
        get realtime() {
          return createRealtimeSigner(shared.realtimeSecret, base, Date.now, runtime.config.realtime.url_ttl_seconds);
        },
      },
      requestId,
      abort,
      owner: '',
      body: {},
      record,
    };
    await next();
  };
}
