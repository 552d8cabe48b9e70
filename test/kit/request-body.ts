/**
 * Reads a request body the way the provider's server would, by its content type: JSON is parsed
 * into `json`, multipart/form-data into `form` (formidable), anything else stays raw bytes.
 */
import type { IncomingMessage } from 'node:http';
import type { ParsedForm } from './handler.js';
import { parseMultipart } from './multipart.js';

/** A fully read body and what its content type made of it. */
export interface ReadBody {
  raw: Buffer;
  json?: unknown;
  form?: ParsedForm;
  /** Why the body did not parse as its content type says (a violation for the test). */
  problem?: string;
}

/** Reads and parses the body of `req`. */
export async function readBody(req: IncomingMessage): Promise<ReadBody> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) {
    if (raw.length === 0) return { raw };
    try {
      return { raw, json: JSON.parse(raw.toString('utf8')) as unknown };
    } catch {
      return { raw, problem: `body is not JSON: ${raw.toString('utf8').slice(0, 80)}` };
    }
  }
  if (type === 'multipart/form-data') {
    try {
      return { raw, form: await parseMultipart(raw, req.headers) };
    } catch (e) {
      return { raw, problem: `multipart body does not parse: ${(e as Error).message}` };
    }
  }
  return { raw };
}
