import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { basename, join } from 'node:path';
import type { File } from 'formidable';
import type { Middleware, ParameterizedContext } from 'koa';
import { errors, GatewayError } from '../../errors/gateway-error.js';
import { UploadedMedia } from '../../mapping/media.js';
import type { AppState, UploadedFile } from '../../calls/state.js';

/** The one file part a multipart route takes (SPEC 4.16 and OpenAI's audio and files APIs). */
const FILE_PART = 'file';

/** Limits of one multipart body. */
export interface MultipartLimits {
  /** Largest file part, in bytes (`files.max_bytes`). */
  fileBytes: number;
  /** Largest total of the text fields, in bytes (`limits.body_bytes`). */
  fieldBytes: number;
  /** Folder the parts are streamed to while their request runs (`files.tmp_dir`, inside `files.dir` by default). */
  uploadRoot: string;
}

/** A parsed multipart body; `cleanup` removes everything the parse wrote (idempotent). */
export interface ParsedMultipart {
  fields: Record<string, unknown>;
  files: UploadedFile[];
  cleanup(): Promise<void>;
}

/** Reads one multipart body (see createMultipartParser). */
export type MultipartParser = (ctx: ParameterizedContext<AppState>) => Promise<ParsedMultipart>;

type KoaBodyModule = typeof import('koa-body');
type FormidableErrors = typeof import('formidable').errors;

let loading: Promise<[KoaBodyModule, FormidableErrors]> | undefined;

/**
 * koa-body (and the formidable it drives), loaded once per process: when the first pipeline
 * with a multipart route is built, i.e. at startup for such a config, never on a request's path.
 * A config without multipart routes never loads it (~6 MB of heap with the zod its option
 * checks use, README "Architecture").
 */
function loadKoaBody(): Promise<[KoaBodyModule, FormidableErrors]> {
  loading ??= Promise.all([import('koa-body'), import('formidable').then((f) => f.errors)]);
  return loading;
}

/**
 * The multipart reader of one route, built with its pipeline: koa-body's middleware, created
 * once, streams the body through formidable to a temp folder of the request's own under
 * `uploadRoot` (never into memory) within the limits (one file part, file and field sizes, no
 * empty file). Each call returns the text fields, the `file` part, and a cleanup that deletes
 * the folder. The folder is removed here when parsing fails (bad form, a second file part, too
 * large, client gone), so a refused upload leaves nothing behind; otherwise the caller runs
 * `cleanup` when the request ends.
 * The `file` part also appears in `fields` as an UploadedMedia, so mappings read it like any field.
 */
export function createMultipartParser(limits: MultipartLimits): MultipartParser {
  // Each request's parts go to a folder of its own, removed when the request ends (success or
  // failure alike: formidable removes only the files still open when a parse fails). koa-body's
  // options are fixed, so formidable's `filename` hook names the part's file inside the folder
  // of the request it is reading.
  const folders = new WeakMap<IncomingMessage, string>();
  const ready = loadKoaBody().then(([{ koaBody }, formidableErrors]) => ({
    formidableErrors,
    middleware: koaBody({
      multipart: true,
      json: false,
      urlencoded: false,
      text: false,
      patchNode: false,
      patchKoa: true,
      formidable: {
        uploadDir: limits.uploadRoot,
        maxFiles: 1,
        maxFileSize: limits.fileBytes,
        maxTotalFileSize: limits.fileBytes,
        maxFieldsSize: limits.fieldBytes,
        maxFields: 200,
        allowEmptyFiles: false,
        minFileSize: 1,
        keepExtensions: false,
        // formidable keeps the request it parses as `form.req` (not in its published types).
        filename: (_name, _ext, _part, form) =>
          join(folders.get((form as unknown as { req: IncomingMessage }).req) ?? '', randomBytes(12).toString('hex')),
      },
    }) as unknown as Middleware<AppState>,
  }));
  // A failed load is reported by the first multipart request, not as an unhandled rejection.
  ready.catch(() => undefined);
  return async (ctx) => {
    const { middleware, formidableErrors } = await ready;
    await mkdir(limits.uploadRoot, { recursive: true });
    const dir = await mkdtemp(join(limits.uploadRoot, 'req-'));
    folders.set(ctx.req, basename(dir));
    // Retries cover a write stream formidable is still closing when a parse fails.
    const cleanup = () => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
    const request = ctx.request as unknown as { body?: Record<string, unknown>; files?: Record<string, File | File[]> };
    try {
      await middleware(ctx, async () => undefined);
    } catch (e) {
      await cleanup();
      throw translateError(e, limits, formidableErrors);
    }
    const files = collectFiles(request.files ?? {});
    try {
      const fields = flattenFields(request.body ?? {});
      const part = files[0];
      if (part && part.field !== FILE_PART) {
        throw errors.invalidRequest(`Unexpected file part '${part.field}': send the file in a part named '${FILE_PART}'.`, 'invalid_multipart', { field: part.field });
      }
      // `file` sent as a text field (a path or an id typed into a form) is no upload.
      if (FILE_PART in fields) {
        throw part ? tooManyFiles() : errors.invalidRequest(`'${FILE_PART}' must be a file part (with a filename), not a text field.`, 'invalid_multipart', { field: FILE_PART });
      }
      if (part) fields[FILE_PART] = new UploadedMedia(part.path, part.filename, part.mimeType, part.size);
      return { fields, files, cleanup };
    } catch (e) {
      await cleanup();
      throw e;
    }
  };
}

function tooManyFiles(): GatewayError {
  return errors.invalidRequest(`Send exactly one file, in the part named '${FILE_PART}'.`, 'too_many_files', { field: FILE_PART });
}

/** Formidable's failures as the gateway's documented errors (by formidable's error codes). */
function translateError(e: unknown, limits: MultipartLimits, formidableErrors: FormidableErrors): unknown {
  if (e instanceof GatewayError) return e;
  const code = (e as { code?: unknown }).code;
  switch (code) {
    case formidableErrors.maxFilesExceeded: return tooManyFiles();
    case formidableErrors.biggerThanMaxFileSize:
    case formidableErrors.biggerThanTotalMaxFileSize: return errors.bodyTooLarge(limits.fileBytes);
    case formidableErrors.maxFieldsSizeExceeded:
    case formidableErrors.maxFieldsExceeded: return errors.bodyTooLarge(limits.fieldBytes);
    case formidableErrors.noEmptyFiles:
    case formidableErrors.smallerThanMinFileSize: return errors.invalidRequest(`The '${FILE_PART}' part is empty.`, 'empty_file', { field: FILE_PART });
    case formidableErrors.malformedMultipart:
    case formidableErrors.missingMultipartBoundary:
    case formidableErrors.missingContentType:
    case formidableErrors.noParser:
    case formidableErrors.filenameNotString:
      return errors.invalidRequest('The multipart/form-data body is malformed.', 'invalid_multipart');
    default: return e;
  }
}

/**
 * Text fields: one value per name; a name sent twice keeps its values as an array; `name[]`
 * parts (how openai-node and most form encoders send arrays) become the array field `name`.
 * koa-body hands a field sent once as its value, one sent twice as an array.
 */
function flattenFields(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (name.endsWith('[]') && name.length > 2) {
      const key = name.slice(0, -2);
      const values = Array.isArray(value) ? value : [value];
      out[key] = [...(Array.isArray(out[key]) ? out[key] as unknown[] : out[key] === undefined ? [] : [out[key]]), ...values];
    } else {
      out[name] = value;
    }
  }
  return out;
}

function collectFiles(raw: Record<string, File | File[]>): UploadedFile[] {
  const out: UploadedFile[] = [];
  for (const [field, value] of Object.entries(raw)) {
    for (const f of Array.isArray(value) ? value : [value]) {
      out.push({ field, path: f.filepath, filename: f.originalFilename || 'upload.bin', mimeType: f.mimetype || 'application/octet-stream', size: f.size });
    }
  }
  return out;
}
