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
import { isMetricsPublic, serveDocs, serveDocsAsset, serveMetrics, serveOpenApi } from '../observability/handlers.js';
import { requestContext } from './request-context.js';
import { authenticateAdmin, type AnonymousWhen } from './steps/authenticate-admin.js';
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
  metrics: (shared) => serveMetrics(shared.observability.metrics),
  openapi: () => serveOpenApi,
  docs: () => serveDocs,
  'docs-asset': () => serveDocsAsset,
};

/** Admin routes (`auth: admin`) that config may open to anyone, by handler name. */
const anonymousWhen: Record<string, AnonymousWhen> = { metrics: isMetricsPublic };

/**
 * Builds the Koa app from the runtime: one router entry per route file, each a fixed chain of
 * steps prepared at startup (context, auth, body, validation, handler).
 */
export function createApp(store: RuntimeStore, shared: SharedServices, logger: Logger): Koa<AppState> {
  const runtime = store.current();
  const app = new Koa<AppState>();
  app.proxy = runtime.config.server.trust_proxy;
  app.silent = true;
  shared.observability.attach(shared.events, logger);
  app.use(trackRequest(shared.events));
  app.use(shared.observability.step);
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
  if (route.spec.auth === 'admin') steps.push(authenticateAdmin(anonymousWhen[route.spec.handler]));
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
