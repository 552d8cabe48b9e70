import type { Middleware, Next, ParameterizedContext } from 'koa';
import type { CompiledRoute } from '../../compile/runtime.js';
import { errors } from '../../errors/gateway-error.js';
import type { AppState } from '../../calls/state.js';
import { createMultipartParser, type MultipartParser } from './parse-multipart.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import { readJsonBody } from './read-json-body.js';

/**
 * Builds the body step of one route at startup: JSON read straight from the request
 * (readJsonBody, compressed bodies included), multipart where the route accepts it
 * (koa-body and formidable, streamed to files under `uploadRoot` and size-limited), 415 for
 * other content types, 413 past the limit, 400 for malformed JSON.
 */
export function parseBody(route: CompiledRoute, limitBytes: number, maxFileBytes: number, uploadRoot: string): Middleware<AppState> {
  const accepted = route.spec.content_types;
  const multipart = accepted.includes('multipart/form-data') ? createMultipartParser({ fileBytes: maxFileBytes, fieldBytes: limitBytes, uploadRoot }) : undefined;
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
      if (multipart && type === 'multipart/form-data') return parseUpload(ctx, next, multipart, limitBytes, maxFileBytes);
      if (declared > limitBytes) throw errors.bodyTooLarge(limitBytes);
      if (JSON_TYPES.has(type)) {
        // Without an async frame of this step's own: the body read is the only wait.
        return readJsonBody(ctx.req, limitBytes, headers['content-encoding']?.trim().toLowerCase()).then((body) => {
          gw.body = asBody(body);
          return next();
        });
      }
      // Another accepted type is not read (as koa-body, set to parse JSON only, left it).
    }
    gw.body = asBody((ctx.request as unknown as { body?: unknown }).body);
    return next();
  };
}

/** The JSON media types read as JSON (the ones koa-body read as JSON). */
const JSON_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json-patch+json', 'application/vnd.api+json', 'application/csp-report', 'application/scim+json']);

/** The parsed body as the steps after this one see it (too deep a nesting is a 400 here). */
function asBody(body: unknown): Record<string, unknown> {
  if (exceedsJsonDepth(body)) throw errors.nestingTooDeep(MAX_JSON_DEPTH);
  return (body && typeof body === 'object' && !Array.isArray(body) ? body : body === undefined ? {} : body) as Record<string, unknown>;
}

/**
 * A multipart body (routes that accept one): streamed to disk by the route's parser, its files
 * removed when the request ends, whatever the outcome, so no upload outlives its request. The
 * whole body may be one file plus the text fields.
 */
async function parseUpload(ctx: ParameterizedContext<AppState>, next: Next, parse: MultipartParser, limitBytes: number, maxFileBytes: number): Promise<void> {
  const gw = ctx.state.gw;
  if (Number(ctx.get('content-length') || 0) > maxFileBytes + limitBytes) throw errors.bodyTooLarge(maxFileBytes);
  const parsed = await parse(ctx);
  try {
    gw.body = parsed.fields;
    gw.files = parsed.files;
    await next();
  } finally {
    await parsed.cleanup();
  }
}
