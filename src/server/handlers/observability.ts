import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Middleware } from 'koa';
import type { Runtime } from '../../compile/runtime.js';
import { packageRoot } from '../../paths.js';
import { errors } from '../../errors/gateway-error.js';
import type { AppState } from '../../calls/state.js';
import { DOCS_ASSETS, renderDocsPage } from '../../observability/docs-page.js';
import type { GatewayMetrics } from '../../observability/metrics.js';
import { buildOpenApi } from '../../observability/openapi.js';

/** `GET /metrics`: the Prometheus exposition of this process. */
export function serveMetrics(metrics: GatewayMetrics): Middleware<AppState> {
  return async (ctx) => {
    const { body, contentType } = await metrics.render();
    ctx.set('Cache-Control', 'no-store');
    ctx.type = contentType;
    ctx.body = body;
  };
}

/** Whether a route may be called without a key in this runtime (today: /metrics when `observability.metrics.public`). */
export function isMetricsPublic(runtime: Runtime): boolean {
  return runtime.config.observability.metrics.public;
}

const documents = new WeakMap<Runtime, string>();
const GATEWAY_VERSION = (JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** `GET /openapi.json`: the OpenAPI 3.1 document of the routes this runtime serves, built once per runtime. */
export const serveOpenApi: Middleware<AppState> = (ctx) => {
  const runtime = ctx.state.gw.runtime;
  let text = documents.get(runtime);
  if (!text) {
    const doc = buildOpenApi(runtime.routes, {
      title: 'Model gateway',
      version: GATEWAY_VERSION,
      isAnonymous: (spec) => spec.handler === 'metrics' && isMetricsPublic(runtime),
    });
    text = JSON.stringify(doc);
    documents.set(runtime, text);
  }
  ctx.set('Cache-Control', 'no-cache');
  ctx.type = 'application/json';
  ctx.body = text;
};

/** `GET /docs`: a page rendering /openapi.json. */
export const serveDocs: Middleware<AppState> = (ctx) => {
  // The router also matches `/docs/`, where the page's relative asset URLs would resolve under
  // /docs/docs/: send the browser to `/docs` (a relative Location, so a path prefix is kept).
  if (ctx.path.endsWith('/')) {
    ctx.status = 301;
    ctx.redirect('../docs');
    return;
  }
  ctx.set('Cache-Control', 'no-cache');
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = renderDocsPage();
};

const assets = new Map<string, Promise<Buffer>>();

/** `GET /docs/assets/:file`: the Swagger UI files the docs page loads, from the swagger-ui-dist package (no CDN). */
export const serveDocsAsset: Middleware<AppState> = async (ctx) => {
  const file = String(ctx.params.file ?? '');
  const type = Object.hasOwn(DOCS_ASSETS, file) ? DOCS_ASSETS[file] : undefined;
  if (!type) throw errors.notFound(`No docs asset '${file}'.`, 'route_not_found');
  let bytes = assets.get(file);
  if (!bytes) {
    bytes = readFile(createRequire(import.meta.url).resolve(`swagger-ui-dist/${file}`));
    assets.set(file, bytes);
  }
  ctx.set('Cache-Control', 'public, max-age=86400');
  ctx.type = type;
  ctx.body = await bytes;
};
