import type { Middleware } from 'koa';
import { routeKey, type CompiledRoute } from '../compile/runtime.js';
import type { RuntimeStore } from '../compile/runtime-store.js';
import { RequestServices } from './request-services.js';
import type { AppState } from './state.js';
import type { SharedServices } from './services.js';

/**
 * First step of every route: captures the current runtime once and gives the request an
 * AbortController that fires when the client goes away before the answer is complete.
 */
export function requestContext(route: CompiledRoute, store: RuntimeStore, shared: SharedServices): Middleware<AppState> {
  const key = routeKey(route.spec);
  return async (ctx, next) => {
    const runtime = store.current();
    const record = ctx.state.record;
    const requestId = record.requestId;
    record.route = route.spec.file;
    record.operation = route.spec.operation;
    // Fired by trackRequest's one 'close' listener when the client goes away early.
    const abort = new AbortController();
    ctx.state.gw = {
      runtime,
      // After a reload the route's validator and parameter sets come from the new runtime.
      route: runtime.routesByKey.get(key) ?? route,
      services: new RequestServices(shared, runtime, ctx.request),
      requestId,
      abort,
      owner: '',
      body: {},
      record,
    };
    await next();
  };
}
