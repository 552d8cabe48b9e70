import type { ParameterizedContext } from 'koa';
import { errors } from '../../errors/gateway-error.js';
import type { ManagedFileStore } from '../../store/file-store.js';
import type { AppState } from '../../calls/state.js';
import { publicRecord } from '../../calls/upload-file.js';

/** OpenAI's bounds for GET /files `limit` (its default is the maximum). */
const MAX_LIST_LIMIT = 10_000;

type Ctx = ParameterizedContext<AppState>;

/** 404 as OpenAI answers for an unknown file id (also for another key's file and an expired one). */
function fileNotFound(id: string) {
  return errors.notFound(`No such file: '${id}'.`, 'file_not_found');
}

/**
 * GET /v1/files: the caller's files, newest first (`order=asc` for oldest first), `limit`
 * (1-10000, default 10000) per page, `after` = the last id of the previous page; answered as
 * OpenAI's cursor page `{object: "list", data, first_id, last_id, has_more}`.
 */
export async function listFiles(ctx: Ctx, files: ManagedFileStore): Promise<void> {
  const gw = ctx.state.gw;
  const limit = readLimit(ctx.query.limit);
  const order = readOne(ctx.query.order, 'order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw errors.invalidRequest("'order' must be asc or desc.", 'invalid_query', { field: 'order' });
  const after = readOne(ctx.query.after, 'after');
  const page = await files.list(gw.owner, { limit, order, ...(after ? { after } : {}) });
  if (!page) throw errors.invalidRequest(`'after' names no file of yours: '${after}'.`, 'invalid_cursor', { field: 'after' });
  const data = page.data.map(publicRecord);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { object: 'list', data, first_id: page.data[0]?.id ?? null, last_id: page.data.at(-1)?.id ?? null, has_more: page.hasMore };
}

/** GET /v1/files/{id}: the record (404 when missing, expired or another key's). */
export async function getFile(ctx: Ctx, files: ManagedFileStore): Promise<void> {
  const gw = ctx.state.gw;
  const id = String(ctx.params.id ?? '');
  const record = await files.get(id, gw.owner);
  if (!record) throw fileNotFound(id);
  ctx.set('Cache-Control', 'no-store');
  ctx.body = publicRecord(record);
}

/** GET /v1/files/{id}/content: the bytes, streamed from storage with the upload's media type. */
export async function getFileContent(ctx: Ctx, files: ManagedFileStore): Promise<void> {
  const gw = ctx.state.gw;
  const id = String(ctx.params.id ?? '');
  const opened = await files.open(id, gw.owner);
  if (!opened) throw fileNotFound(id);
  // A client that leaves mid-download must not keep the storage stream open.
  gw.abort.signal.addEventListener('abort', () => opened.body.destroy(), { once: true });
  ctx.status = 200;
  // attachment() guesses a type from the name: the upload's own media type is set after it.
  ctx.attachment(opened.record.filename, { type: 'attachment' });
  ctx.set('Cache-Control', 'no-store');
  ctx.body = opened.body;
  ctx.type = opened.record.mime_type;
  ctx.length = opened.record.bytes;
}

/** DELETE /v1/files/{id}: bytes and record; `{id, object: "file", deleted: true}` as OpenAI answers. */
export async function deleteFile(ctx: Ctx, files: ManagedFileStore): Promise<void> {
  const gw = ctx.state.gw;
  const id = String(ctx.params.id ?? '');
  if (!(await files.delete(id, gw.owner))) throw fileNotFound(id);
  ctx.body = { id, object: 'file', deleted: true };
}

function readOne(value: string | string[] | undefined, field: string): string | undefined {
  if (Array.isArray(value)) throw errors.invalidRequest(`'${field}' is given more than once.`, 'invalid_query', { field });
  return value === undefined || value === '' ? undefined : value;
}

function readLimit(value: string | string[] | undefined): number {
  const text = readOne(value, 'limit');
  if (text === undefined) return MAX_LIST_LIMIT;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_LIST_LIMIT) throw errors.invalidRequest(`'limit' must be an integer from 1 to ${MAX_LIST_LIMIT}.`, 'invalid_query', { field: 'limit' });
  return n;
}
