import { koaBody } from 'koa-body';
import type { Middleware, Next, ParameterizedContext } from 'koa';
import type { CompiledRoute } from '../../compile/runtime.js';
import { errors } from '../../errors/gateway-error.js';
import { uploadRootOf } from '../../store/upload-root.js';
import type { AppState } from '../state.js';
import { parseMultipart } from './parse-multipart.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import { readJsonBody } from './read-json-body.js';

/**
 * Builds the body step of one route at startup: JSON read straight from the request
 * (readJsonBody; koa-body for compressed bodies), multipart where the route accepts it
 * (streamed to disk and size-limited), 415 for other content types, 413 past the limit, 400
 * for malformed JSON.
 */
export function parseBody(route: CompiledRoute, limitBytes: number, maxFileBytes: number): Middleware<AppState> {
  const accepted = route.spec.content_types;
  const multipart = accepted.includes('multipart/form-data');
  const parse = koaBody({
    json: true,
    jsonStrict: true,
    jsonLimit: limitBytes,
    text: false,
    urlencoded: false,
    multipart: false,
  });
  return (ctx, next) => {
    const gw = ctx.state.gw;
    const headers = ctx.req.headers;
    const declared = Number(headers['content-length'] || 0);
    if (declared > 0 || Boolean(headers['transfer-encoding'])) {
      // A body sent without any Content-Type is read as the route's canonical type (JSON), as
      // most clients that forget the header mean it; a wrong declared type is still a 415.
      if (!headers['content-type']) headers['content-type'] = accepted[0]!;
      const type = ctx.request.type || 'application/octet-stream';
      if (!accepted.some((a) => type === a)) throw errors.unsupportedMediaType(type, accepted);
      if (multipart && type === 'multipart/form-data') return parseUpload(ctx, next, limitBytes, maxFileBytes);
      if (declared > limitBytes) throw errors.bodyTooLarge(limitBytes);
      const encoding = headers['content-encoding'];
      if (type === 'application/json' && (encoding === undefined || encoding === 'identity')) {
        // The common case, without an async frame of this step's own.
        return readJsonBody(ctx.req, limitBytes).then((body) => {
          gw.body = asBody(body);
          return next();
        });
      }
      return parseEncoded(ctx, next, parse, limitBytes);
    }
    gw.body = asBody((ctx.request as unknown as { body?: unknown }).body);
    return next();
  };
}

/** A compressed JSON body, read by koa-body (which inflates it). */
async function parseEncoded(ctx: ParameterizedContext<AppState>, next: Next, parse: Middleware, limitBytes: number): Promise<void> {
  try {
    await parse(ctx, async () => undefined);
  } catch (e) {
    const err = e as { status?: number; httpCode?: number; code?: number; message?: string };
    if (err.status === 413 || err.httpCode === 413 || /maxFileSize|exceeded/i.test(err.message ?? '')) throw errors.bodyTooLarge(limitBytes);
    throw e;
  }
  ctx.state.gw.body = asBody((ctx.request as unknown as { body?: unknown }).body);
  await next();
}

/** The parsed body as the steps after this one see it (too deep a nesting is a 400 here). */
function asBody(body: unknown): Record<string, unknown> {
  if (exceedsJsonDepth(body)) throw errors.nestingTooDeep(MAX_JSON_DEPTH);
  return (body && typeof body === 'object' && !Array.isArray(body) ? body : body === undefined ? {} : body) as Record<string, unknown>;
}

/**
 * A multipart body (routes that accept one): streamed to a per-request temp folder that is
 * removed when the request ends, whatever the outcome, so no upload outlives its request.
 * The whole body may be one file plus the text fields.
 */
async function parseUpload(ctx: ParameterizedContext<AppState>, next: Next, limitBytes: number, maxFileBytes: number): Promise<void> {
  const gw = ctx.state.gw;
  if (Number(ctx.get('content-length') || 0) > maxFileBytes + limitBytes) throw errors.bodyTooLarge(maxFileBytes);
  const files = gw.runtime.config.files;
  const parsed = await parseMultipart(ctx, { fileBytes: maxFileBytes, fieldBytes: limitBytes, uploadRoot: uploadRootOf(files) });
  try {
    gw.body = parsed.fields;
    gw.files = parsed.files;
    await next();
  } finally {
    await parsed.cleanup();
  }
}
