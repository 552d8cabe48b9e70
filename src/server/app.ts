import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import type { Logger } from 'pino';
import type { RuntimeStore } from '../compile/runtime-store.js';
import type { CompiledRoute } from '../compile/runtime.js';
import { errors } from '../errors/gateway-error.js';
import { getModel, limitAnonymous, listModels } from './handlers/discovery.js';
import { modelCall } from './handlers/model-call.js';
import { pollJob } from './handlers/poll-job.js';
import { uploadFile } from './handlers/upload-file.js';
import type { SharedServices } from './services.js';
import type { AppState } from './state.js';
import { authenticate } from './steps/authenticate.js';
import { errorBoundary } from './steps/error-boundary.js';
import { keyPolicy } from './steps/key-policy.js';
import { parseBody } from './steps/parse-body.js';
import { validateBody } from './steps/validate.js';
import { resolveClientAddress } from './client-address.js';
import { requestContext } from './request-context.js';
import type { RequestRecord } from './request-record.js';
import { trackRequest } from './steps/track-request.js';

type Handler = (shared: SharedServices) => Middleware<AppState>;

/** Route handlers by the name route files give in `handler:`. */
const handlers: Record<string, Handler> = {
  'model-call': (shared) => (ctx) => modelCall(ctx, shared),
  'list-models': (shared) => async (ctx) => { await limitAnonymous(ctx, shared.limiter); listModels(ctx); },
  'get-model': (shared) => async (ctx) => { await limitAnonymous(ctx, shared.limiter); getModel(ctx); },
  'upload-file': () => (ctx) => uploadFile(ctx),
  'poll-job': () => (ctx) => pollJob(ctx),
  health: () => (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  },
};

/**
 * Builds the Koa app from the runtime: one router entry per route file, each a fixed chain of
 * steps prepared at startup (context, auth, body, validation, handler).
 */
export function createApp(store: RuntimeStore, shared: SharedServices, logger: Logger): Koa<AppState> {
  const runtime = store.current();
  const app = new Koa<AppState>();
  app.proxy = false; // client addresses: server.trusted_proxies (client-address.ts)
  app.silent = true;
  shared.events.subscribe({ finished: accessLogLine(logger) });
  app.use(resolveClientAddress(store));
  app.use(trackRequest(shared.events));
  app.use(errorBoundary(logger));
  const router = new Router<AppState>();
  for (const route of runtime.routes) {
    const steps = stepsOf(route, store, shared);
    router.register(route.spec.path, [route.spec.method], steps, { name: route.spec.file });
  }
  app.use(decodeEncodedSlashes);
  app.use(router.routes());
  app.use(notFound(runtime.routes));
  return app;
}

function stepsOf(route: CompiledRoute, store: RuntimeStore, shared: SharedServices): Middleware<AppState>[] {
  const { config } = store.current();
  const steps: Middleware<AppState>[] = [requestContext(route, store, shared)];
  if (route.spec.auth === 'key') steps.push(authenticate, keyPolicy(shared));
  if (route.spec.method !== 'GET') steps.push(parseBody(route, config.limits.body_bytes, config.files.max_bytes), validateBody(route));
  const handler = handlers[route.spec.handler];
  if (!handler) throw new Error(`route ${route.spec.file}: unknown handler '${route.spec.handler}'`);
  steps.push(handler(shared));
  return steps;
}

/** 404 for unknown paths, 405 for a known path with another method; in the right envelope. */
function notFound(routes: readonly CompiledRoute[]): Middleware<AppState> {
  const matchers = routes.map((r) => ({ method: r.spec.method, re: new RegExp(`^${r.spec.path.replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`) }));
  return async (ctx) => {
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    const allowed = matchers.filter((m) => m.re.test(ctx.path)).map((m) => m.method);
    if (allowed.length > 0) throw errors.methodNotAllowed(ctx.method, ctx.path, [...new Set(allowed)].join(', '));
    throw errors.routeNotFound(ctx.method, ctx.path);
  };
}

/**
 * Model ids contain a slash, and SDKs percent-encode it in paths (openai's
 * `models.retrieve('sandbox/echo-1')` asks for `/v1/models/sandbox%2Fecho-1`): read `%2F` as `/`.
 */
const decodeEncodedSlashes: Middleware<AppState> = async (ctx, next) => {
  if (/%2f/i.test(ctx.path)) ctx.path = ctx.path.replace(/%2f/gi, '/');
  await next();
};

/**
 * One log line per request, written when the response has finished (streams included), with
 * the status the client got. No headers, no bodies, so no keys.
 */
function accessLogLine(logger: Logger): (r: Readonly<RequestRecord>) => void {
  return (r) => {
    if (!logger.isLevelEnabled('info')) return;
    logger.info({
      id: r.requestId, method: r.method, path: r.path, route: r.route, status: r.status, ms: r.durationMs,
      key: r.keyName, model: r.model, provider: r.provider, attempts: r.attempts || undefined,
      cost: r.costUsd, ttfb_ms: r.ttfbMs, aborted: r.clientAborted || undefined,
    }, 'request');
  };
}
