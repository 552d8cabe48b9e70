import Router from '@koa/router';
import { allRoutePathMatchers, isWildcard, shadowedBy } from '../compile/route-paths.js';
import Koa, { type Middleware } from 'koa';
import { GatewayKoa } from './gateway-koa.js';
import compose from 'koa-compose';
import type { Logger } from 'pino';
import type { RuntimeStore } from '../compile/runtime-store.js';
import type { CompiledRoute, Runtime } from '../compile/runtime.js';
import { configDefaults } from '../config/defaults.js';
import { errors } from '../errors/gateway-error.js';
import { getModel, limitAnonymous, listModels } from './handlers/discovery.js';
import { deleteFile, getFile, getFileContent, listFiles } from './handlers/file-routes.js';
import { getResponse } from './handlers/get-response.js';
import { modelCall } from './handlers/model-call.js';
import { pollJob } from './handlers/poll-job.js';
import { readiness } from './handlers/readiness.js';
import { uploadFile } from './handlers/upload-file.js';
import { proxyHandler } from './handlers/proxy.js';
import { createMediaFetcher } from '../upstream/fetch-media.js';
import { uploadRootOf } from '../store/upload-root.js';
import type { Lifecycle } from './lifecycle.js';
import type { SharedServices } from './services.js';
import type { AppState } from '../calls/state.js';
import { authenticate } from './steps/authenticate.js';
import { keyPolicy } from './steps/key-policy.js';
import { parseBody } from './steps/parse-body.js';
import { validateBody } from './steps/validate.js';
import { isMetricsPublic, serveDocs, serveDocsAsset, serveMetrics, serveOpenApi } from './handlers/observability.js';
import { installClientAddress } from './client-address.js';
import { requestContext } from './request-context.js';
import { authenticateAdmin, authenticateAdminOrKey, type AnonymousWhen } from './steps/authenticate-admin.js';
import { adminHandler } from './handlers/admin.js';
import { dashboard } from './handlers/dashboard.js';
import { usageReport } from './handlers/usage-report.js';
import { frontStep } from './steps/front.js';

/** What a handler may capture when its pipeline is built: the runtime, the lifecycle and its own route. */
export interface PipelineScope { runtime: Runtime; lifecycle: Lifecycle; route: CompiledRoute }

type Handler = (shared: SharedServices, scope: PipelineScope) => Middleware<AppState>;

/** Route handlers by the name route files give in `handler:`. */
const handlers: Record<string, Handler> = {
  'model-call': (shared) => (ctx) => modelCall(ctx, shared),
  'list-models': (shared) => async (ctx) => { listModels(ctx, await limitAnonymous(ctx, shared.limiter, shared)); },
  'get-model': (shared) => async (ctx) => { await limitAnonymous(ctx, shared.limiter, shared); getModel(ctx); },
  'upload-file': () => (ctx) => uploadFile(ctx),
  'poll-job': () => (ctx) => pollJob(ctx),
  'get-response': (shared) => (ctx) => getResponse(ctx, shared),
  'list-files': (shared) => (ctx) => listFiles(ctx, shared.files),
  'get-file': (shared) => (ctx) => getFile(ctx, shared.files),
  'get-file-content': (shared) => (ctx) => getFileContent(ctx, shared.files),
  'delete-file': (shared) => (ctx) => deleteFile(ctx, shared.files),
  admin: (shared, { route }) => adminHandler(route.spec.operation, shared),
  'usage-report': (shared) => usageReport(shared),
  dashboard: () => dashboard(),
  health: () => (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  },
  readiness: (shared, { runtime, lifecycle }) => (ctx) => readiness(ctx, { shared, runtime, lifecycle }),
  metrics: (shared) => serveMetrics(shared.observability.metrics),
  openapi: () => serveOpenApi,
  docs: () => serveDocs,
  'docs-asset': () => serveDocsAsset,
  proxy: (shared, { route }) => proxyHandler(route, shared),
};

/** Handlers whose routes stay open while the gateway drains. */
const probeHandlers: ReadonlySet<string> = new Set(['health', 'readiness']);

/** Admin routes (`auth: admin`) that config may open to anyone, by handler name. */
const anonymousWhen: Record<string, AnonymousWhen> = { metrics: isMetricsPublic };

/**
 * The whole request pipeline of one runtime: router, per-route steps, 404/405, media fetcher.
 * Built in full before it serves, so a reload swaps one finished pipeline for another.
 */
export interface Pipeline {
  readonly runtime: Runtime;
  /** Routes the request; runs its steps and handler. */
  readonly handle: Middleware<AppState>;
  /** True for the probe routes (they answer while draining). */
  isProbe(method: string, path: string): boolean;
  /** Closes what the pipeline holds open (its media fetcher's pool) once the fetches running are done. */
  close(): Promise<void>;
}

/**
 * Compiles a runtime into its pipeline. Throws (naming the route) when a route cannot be
 * served, so a reload can refuse it while the old pipeline keeps serving.
 */
export function buildPipeline(runtime: Runtime, shared: SharedServices, lifecycle: Lifecycle): Pipeline {
  const { config } = runtime;
  const fetchPolicy = config.limits.fetch ?? configDefaults.limits.fetch!;
  const fetchMedia = createMediaFetcher({ allowPrivate: fetchPolicy.allow_private, maxBytes: fetchPolicy.max_bytes, timeoutMs: fetchPolicy.timeout_ms });
  const scope = { runtime, lifecycle };
  const uploadRoot = uploadRootOf(config.files);
  const router = new Router<AppState>();
  // Wildcard routes (`/passthrough/openai/{*rest}`) are tried after every other route, so
  // they never swallow a sibling path another route declares.
  const wildcards = new Router<AppState>();
  const exact = new ExactRoutes();
  for (const route of runtime.routes) {
    const handler = handlers[route.spec.handler];
    if (!handler) throw new Error(`route ${route.spec.file}: unknown handler '${route.spec.handler}'`);
    const steps: Middleware<AppState>[] = [requestContext(route, runtime, shared, fetchMedia)];
    if (route.spec.auth === 'key') steps.push(authenticate(shared), keyPolicy(shared));
    if (route.spec.auth === 'admin') steps.push(authenticateAdmin(shared, anonymousWhen[route.spec.handler]));
    if (route.spec.auth === 'admin-or-key') steps.push(authenticateAdminOrKey(shared), keyPolicy(shared));
    // A pass-through route streams the body it never reads.
    if (route.spec.method !== 'GET' && !route.proxy) steps.push(parseBody(route, config.limits.body_bytes, config.files.max_bytes, uploadRoot), validateBody(route));
    steps.push(handler(shared, { ...scope, route }));
    // A parameter route passes over the paths of its static siblings (compile/route-paths.ts).
    const shadowed = shadowedBy(route.spec.path, runtime.routes);
    const run = shadowed ? compose(steps) : undefined;
    const guarded: Middleware<AppState>[] = shadowed && run ? [(ctx, next) => (shadowed(ctx.path) ? next() : run(ctx, next))] : steps;
    (isWildcard(route.spec.path) ? wildcards : router).register(route.spec.path, [route.spec.method], guarded, { name: route.spec.file });
    if (!/[:*{]/.test(route.spec.path)) exact.add(route.spec.method, route.spec.path, { name: route.spec.file, steps: compose(steps), probe: probeHandlers.has(route.spec.handler) });
  }
  // The router's middleware is typed for its own context; Koa hands it the plain one at run time.
  const routes = router.routes() as unknown as Middleware<AppState>;
  const wildcardRoutes = wildcards.routes() as unknown as Middleware<AppState>;
  const notFoundAnswer = notFound(runtime.routes);
  const fallback: Middleware<AppState> = (ctx, next) => wildcardRoutes(ctx, () => notFoundAnswer(ctx, next));
  const handle: Middleware<AppState> = (ctx, next) => {
    const direct = exact.find(ctx.method, ctx.path);
    if (direct) {
      // What the router sets on a match (traces name the span by `_matchedRoute`).
      const routed = ctx as unknown as RouterMatch;
      routed.params = {};
      routed.routerPath = routed._matchedRoute = direct.path;
      routed.routerName = routed._matchedRouteName = direct.name;
      return direct.steps(ctx, next);
    }
    return routes(ctx, () => fallback(ctx, next));
  };
  return Object.freeze({
    runtime,
    handle,
    isProbe: (method: string, path: string) => exact.find(method, path)?.probe === true,
    close: () => fetchMedia.close(),
  });
}

/**
 * Routes without path parameters by method and exact path. The router tests every route's
 * pattern in turn on each request (46 in the shipped config); a request for a route's own path
 * (the SDKs' spelling) finds its steps in one lookup. Anything else (a trailing slash, other
 * letter case, HEAD, path parameters, unknown paths) goes through the router as before.
 */
class ExactRoutes {
  private readonly byMethod = new Map<string, Map<string, ExactRoute>>();

  add(method: string, path: string, route: Omit<ExactRoute, 'path'>): void {
    let paths = this.byMethod.get(method);
    if (!paths) this.byMethod.set(method, (paths = new Map()));
    paths.set(path, { path, ...route });
  }

  find(method: string, path: string): ExactRoute | undefined {
    return this.byMethod.get(method)?.get(path);
  }
}

interface ExactRoute {
  readonly path: string;
  /** The route file's name (the router's route name). */
  readonly name: string;
  readonly steps: Middleware<AppState>;
  /** A probe route (health, readiness): it answers while the gateway drains. */
  readonly probe: boolean;
}

/** The fields @koa/router sets on the context of a matched route. */
interface RouterMatch { params: Record<string, string>; routerPath: string; routerName: string; _matchedRoute: string; _matchedRouteName: string }

/** The Koa app and the pipeline it serves, swappable as one. */
export interface GatewayApp {
  readonly koa: Koa<AppState>;
  /** The pipeline new requests run on. */
  pipeline(): Pipeline;
  /**
   * Builds the pipeline of `next` and puts it (and `next` in the runtime store) in force in one
   * step; requests already running finish on the pipeline they started on, which is closed once
   * they have. Throws when the pipeline cannot be built: nothing changes then.
   */
  swap(next: Runtime): void;
}

/**
 * Builds the Koa app: the front step (request tracking, observability, the error boundary and
 * the drain gate) around the pipeline in force. Each request captures the pipeline once, at its start.
 */
export function createApp(store: RuntimeStore, shared: SharedServices, logger: Logger, lifecycle: Lifecycle): GatewayApp {
  let active = buildPipeline(store.current(), shared, lifecycle);
  const app = new GatewayKoa();
  app.proxy = false; // client addresses: server.trusted_proxies (client-address.ts)
  installClientAddress(app, store);
  app.silent = true;
  shared.observability.attach(shared.events, logger, {
    requests: () => lifecycle.inFlight.size,
    streams: () => {
      let n = 0;
      for (const ctx of lifecycle.inFlight) if (ctx.state.record.streamed) n++;
      return n;
    },
  });
  app.use(frontStep({
    events: shared.events,
    observability: shared.observability,
    logger,
    lifecycle,
    isProbe: (method, path) => active.isProbe(method, path),
    handle: (ctx, next) => active.handle(ctx, next),
  }));
  return {
    koa: app,
    pipeline: () => active,
    swap(next) {
      const built = buildPipeline(next, shared, lifecycle);
      const replaced = active;
      store.swap(next);
      active = built;
      // A request takes its pipeline as it starts (the front step), in the turn it is counted
      // in flight: the requests in flight now are all that can still use the replaced one.
      void lifecycle.inFlightEnded().then(() => replaced.close()).catch(() => undefined);
    },
  };
}

/** 404 for unknown paths, 405 for a known path with another method; in the right envelope. */
function notFound(routes: readonly CompiledRoute[]): Middleware<AppState> {
  const matchers = allRoutePathMatchers(routes);
  return async (ctx) => {
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    const allowed = matchers.filter((m) => m.matches(ctx.path)).map((m) => m.method);
    if (allowed.length > 0) throw errors.methodNotAllowed(ctx.method, ctx.path, [...new Set(allowed)].join(', '));
    throw errors.routeNotFound(ctx.method, ctx.path);
  };
}
