import { basename } from 'node:path';
import type { Middleware } from 'koa';
import type { CompiledRoute, Runtime } from '../compile/runtime.js';
import type { OperationServices } from '../providers/types.js';
import { RequestServices } from '../calls/request-services.js';
import type { AppState } from '../calls/state.js';
import type { SharedServices } from './services.js';
import { RequestAbort } from '../upstream/request-abort.js';

/**
 * First step of every route: binds the request to the runtime its pipeline was built from (a
 * reload builds a new pipeline, so a request runs start to end on one config), gives it an
 * AbortController that fires when the client goes away before the answer is complete.
 * `fetchMedia` is the pipeline's own (fetch limits reload with the config).
 */
export function requestContext(route: CompiledRoute, runtime: Runtime, shared: SharedServices, fetchMedia: OperationServices['fetchMedia']): Middleware<AppState> {
  // The record names the route by its file name (`chat-completions.yaml`), not the path it was read from.
  const routeName = basename(route.spec.file);
  return (ctx, next) => {
    const record = ctx.state.record;
    const requestId = record.requestId;
    record.route = routeName;
    record.operation = route.spec.operation;
    // Fired by the request record's one 'close' listener (track-request.ts) when the client goes away early.
    const abort = new RequestAbort();
    ctx.state.gw = {
      runtime,
      route,
      services: new RequestServices(shared, runtime, ctx.request, fetchMedia),
      requestId,
      abort,
      owner: '',
      body: {},
      record,
    };
    // Nothing to do after the route: its promise is handed on (no async frame of its own).
    return next();
  };
}
