import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Middleware } from 'koa';
import { errors } from '../../errors/gateway-error.js';
import { packageRoot } from '../../paths.js';
import type { AppState } from '../../calls/state.js';

/** Folder of the dashboard's static files (shipped as they are: no build step). */
export const uiDir = join(packageRoot, 'ui');

const TYPES: Record<string, string> = { html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml' };

/**
 * Serves /ui (index.html) and /ui/<file> from ui/. Only plain names of files in that folder
 * (no slashes, no dot-files), so nothing else on disk is reachable. The page holds no data;
 * it asks the admin API with the key the operator types in.
 */
export function dashboard(): Middleware<AppState> {
  const cache = new Map<string, Buffer>();
  return async (ctx) => {
    const file = (ctx as unknown as { params?: { file?: string } }).params?.file ?? 'index.html';
    const ext = /^[a-z0-9][a-z0-9-]*\.([a-z]+)$/.exec(file)?.[1];
    const type = ext && TYPES[ext];
    if (!type) throw errors.notFound(`No dashboard file '${file}'.`, 'route_not_found');
    let body = cache.get(file);
    if (!body) {
      body = await readFile(join(uiDir, file)).catch(() => undefined);
      if (!body) throw errors.notFound(`No dashboard file '${file}'.`, 'route_not_found');
      cache.set(file, body);
    }
    ctx.set('Cache-Control', 'no-cache');
    // The page runs only its own script and talks only to this origin.
    ctx.set('Content-Security-Policy', "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'");
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = type;
    ctx.body = body;
  };
}
