import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Fields, File, Files } from 'formidable';
import type { ParameterizedContext } from 'koa';
import { errors, GatewayError } from '../../errors/gateway-error.js';
import { UploadedMedia } from '../../mapping/media.js';
import type { AppState, UploadedFile } from '../../calls/state.js';

/** The one file part a multipart route takes (SPEC 4.16 and OpenAI's audio and files APIs). */
export const FILE_PART = 'file';

/** Limits of one multipart body. */
export interface MultipartLimits {
  /** Largest file part, in bytes (`files.max_bytes`). */
  fileBytes: number;
  /** Largest total of the text fields, in bytes (`limits.body_bytes`). */
  fieldBytes: number;
  /** Folder under which each request gets its own temp folder. */
  uploadRoot: string;
}

/** A parsed multipart body; `cleanup` removes everything the parse wrote (idempotent). */
export interface ParsedMultipart {
  fields: Record<string, unknown>;
  files: UploadedFile[];
  cleanup(): Promise<void>;
}

/**
 * Streams a multipart body to a temp folder of its own (never into memory) and returns its
 * text fields, its `file` part, and a cleanup that deletes the folder. The folder is removed
 * here when parsing fails (bad form, a second file part, too large, client gone), so a refused
 * upload leaves nothing behind; otherwise the caller runs `cleanup` when the request ends. The
 * `file` part also appears in `fields` as an UploadedMedia, so mappings read it like any field.
 */
export async function parseMultipart(ctx: ParameterizedContext<AppState>, limits: MultipartLimits): Promise<ParsedMultipart> {
  await mkdir(limits.uploadRoot, { recursive: true });
  const dir = await mkdtemp(join(limits.uploadRoot, 'req-'));
  // Retries cover a write stream formidable is still closing when a parse fails.
  const cleanup = () => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
  // formidable is loaded with the first multipart body: most gateways never take one, and it
  // cost every startup ~25 ms and ~2 MB of heap (with its id generator).
  const { default: formidable, errors: formidableErrors } = await import('formidable');
  const form = formidable({
    uploadDir: dir,
    maxFiles: 1,
    maxFileSize: limits.fileBytes,
    maxTotalFileSize: limits.fileBytes,
    maxFieldsSize: limits.fieldBytes,
    maxFields: 200,
    allowEmptyFiles: false,
    minFileSize: 1,
    keepExtensions: false,
  });
  try {
    const [rawFields, rawFiles] = await form.parse(ctx.req);
    const fields = flattenFields(rawFields);
    const files = collectFiles(rawFiles);
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
    throw translateError(e, limits, formidableErrors);
  }
}

function tooManyFiles(): GatewayError {
  return errors.invalidRequest(`Send exactly one file, in the part named '${FILE_PART}'.`, 'too_many_files', { field: FILE_PART });
}

/** Formidable's failures as the gateway's documented errors (by formidable's error codes). */
function translateError(e: unknown, limits: MultipartLimits, formidableErrors: typeof import('formidable').errors): unknown {
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
 */
function flattenFields(raw: Fields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(raw)) {
    if (values === undefined) continue;
    if (name.endsWith('[]') && name.length > 2) {
      const key = name.slice(0, -2);
      out[key] = [...(Array.isArray(out[key]) ? out[key] as unknown[] : out[key] === undefined ? [] : [out[key]]), ...values];
    } else {
      out[name] = values.length === 1 ? values[0] : values;
    }
  }
  return out;
}

function collectFiles(raw: Files): UploadedFile[] {
  const out: UploadedFile[] = [];
  for (const [field, list] of Object.entries(raw)) {
    for (const f of (list ?? []) as File[]) {
      out.push({ field, path: f.filepath, filename: f.originalFilename || 'upload.bin', mimeType: f.mimetype || 'application/octet-stream', size: f.size });
    }
  }
  return out;
}
