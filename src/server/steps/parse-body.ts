import { koaBody } from 'koa-body';
import type { Middleware } from 'koa';
import type { CompiledRoute } from '../../compile/runtime.js';
import { errors } from '../../errors/gateway-error.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import type { AppState, UploadedFile } from '../state.js';

/**
 * Builds the body step of one route at startup: koa-body for JSON (and multipart where the
 * route accepts it, streamed to disk and size-limited), 415 for other content types, 413 past
 * the limit, 400 for malformed JSON.
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
    multipart,
    formLimit: limitBytes,
    formidable: multipart ? { maxFileSize: maxFileBytes, maxFiles: 1, keepExtensions: false } : undefined,
  });
  return async (ctx, next) => {
    const gw = ctx.state.gw;
    const hasBody = Number(ctx.get('content-length') || 0) > 0 || Boolean(ctx.get('transfer-encoding'));
    if (hasBody) {
      // A body sent without any Content-Type is read as the route's canonical type (JSON), as
      // most clients that forget the header mean it; a wrong declared type is still a 415.
      if (!ctx.get('content-type')) ctx.request.headers['content-type'] = accepted[0]!;
      const type = ctx.request.type || 'application/octet-stream';
      if (!accepted.some((a) => type === a)) throw errors.unsupportedMediaType(type, accepted);
      const declared = Number(ctx.get('content-length') || 0);
      if (declared > limitBytes) throw errors.bodyTooLarge(limitBytes);
      try {
        await parse(ctx, async () => undefined);
      } catch (e) {
        const err = e as { status?: number; httpCode?: number; code?: number; message?: string };
        if (err.status === 413 || err.httpCode === 413 || /maxFileSize|exceeded/i.test(err.message ?? '')) throw errors.bodyTooLarge(limitBytes);
        throw e;
      }
    }
    const body = (ctx.request as unknown as { body?: unknown }).body;
    if (exceedsJsonDepth(body)) throw errors.nestingTooDeep(MAX_JSON_DEPTH);
    gw.body = (body && typeof body === 'object' && !Array.isArray(body) ? body : body === undefined ? {} : body) as Record<string, unknown>;
    // Only a multipart request has file parts; a JSON body on the same route is validated as JSON.
    if (multipart && ctx.request.is('multipart/form-data')) gw.files = collectFiles(ctx.request as unknown as { files?: Record<string, unknown> });
    await next();
  };
}

function collectFiles(request: { files?: Record<string, unknown> }): UploadedFile[] {
  const out: UploadedFile[] = [];
  for (const [field, value] of Object.entries(request.files ?? {})) {
    for (const f of Array.isArray(value) ? value : [value]) {
      const file = f as { filepath: string; originalFilename?: string | null; mimetype?: string | null; size: number };
      out.push({ field, path: file.filepath, filename: file.originalFilename ?? 'upload.bin', mimeType: file.mimetype ?? 'application/octet-stream', size: file.size });
    }
  }
  return out;
}
