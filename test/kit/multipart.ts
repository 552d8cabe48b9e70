/**
 * multipart/form-data parsing for the kit (moved from test/fakes/multipart.ts): a real parser
 * (formidable) held entirely in memory, so handler dialects see fields and file parts exactly as
 * a provider's server would.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { Readable, Writable } from 'node:stream';
import formidable from 'formidable';
import type { FormFile, ParsedForm } from './handler.js';

/** @public What a parsed form holds, for suites that read uploads. */
export type { FormFile, ParsedForm } from './handler.js';

/** Parses multipart/form-data bytes (with their headers) entirely in memory. */
export async function parseMultipart(body: Readable | Buffer, headers: IncomingHttpHeaders): Promise<ParsedForm> {
  const byId = new Map<string, FormFile>();
  const form = formidable({
    allowEmptyFiles: true,
    minFileSize: 0,
    maxFileSize: 200 * 1024 * 1024,
    multiples: true,
    fileWriteStreamHandler: (file) => {
      const chunks: Buffer[] = [];
      const volatile = file as unknown as { originalFilename?: string | null; mimetype?: string | null; newFilename: string };
      return new Writable({
        write(chunk: Buffer, _enc, done) { chunks.push(chunk); done(); },
        final(done) {
          byId.set(volatile.newFilename, { field: '', filename: volatile.originalFilename ?? '', mimetype: volatile.mimetype ?? '', bytes: Buffer.concat(chunks) });
          done();
        },
      });
    },
  });
  const stream = Buffer.isBuffer(body) ? Readable.from([body]) : body;
  const request = Object.assign(stream, { headers }) as unknown as Parameters<typeof form.parse>[0];
  const [fields, fileMap] = await form.parse(request);
  // formidable reports each file's field on its own file objects: match them by generated name.
  const files = Object.entries(fileMap).flatMap(([field, list]) => (list ?? []).map((f) => ({ ...byId.get(f.newFilename)!, field })));
  return { fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, (v ?? []).map(String)])), files };
}
