import type { IncomingHttpHeaders } from 'node:http';
import { Readable, Writable } from 'node:stream';
import formidable from 'formidable';

/** One file part of a multipart body. */
export interface FormFile { field: string; filename: string; mimetype: string; bytes: Buffer }

/** A multipart body parsed by a real parser (formidable): text fields and file parts, in order. */
export interface ParsedForm {
  fields: Record<string, string[]>;
  files: FormFile[];
}

/** Parses multipart/form-data bytes (with their headers) entirely in memory. */
export async function parseMultipart(body: Readable, headers: IncomingHttpHeaders): Promise<ParsedForm> {
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
  const request = Object.assign(body, { headers }) as unknown as Parameters<typeof form.parse>[0];
  const [fields, fileMap] = await form.parse(request);
  // formidable reports each file's field on its own file objects: match them by generated name.
  const files = Object.entries(fileMap).flatMap(([field, list]) => (list ?? []).map((f) => ({ ...byId.get(f.newFilename)!, field })));
  return { fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, (v ?? []).map(String)])), files };
}
