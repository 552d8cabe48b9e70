import type { IncomingMessage } from 'node:http';
import { scan } from '@hapi/bourne';
import { errors } from '../../errors/gateway-error.js';

/**
 * Reads an uncompressed JSON request body and parses it, as koa-body (co-body, raw-body and
 * bourne) did for these bodies, in a fraction of its CPU: the bytes are gathered straight from
 * the request stream. Same answers as before: 413 past `limitBytes`, 400 `malformed_json` for
 * text that is not JSON or whose top level is not an object or array, an empty body read as
 * `{}`, a UTF-8 BOM skipped, and a `__proto__` key refused (prototype poisoning).
 * Compressed bodies (`Content-Encoding`) still go through koa-body.
 */
export function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limitBytes) {
        cleanup();
        req.pause();
        reject(errors.bodyTooLarge(limitBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      try {
        resolve(parseJsonText(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, received).toString('utf8')));
      } catch (e) {
        reject(e);
      }
    };
    const onError = (e: Error) => {
      cleanup();
      reject(e);
    };
    const onAborted = () => {
      cleanup();
      reject(errors.invalidRequest('The request was aborted before its body was complete.'));
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('aborted', onAborted);
  });
}

// co-body's strict mode: only an object or an array at the top level.
const STRICT_JSON_START = /^[\x20\x09\x0a\x0d]*[[{]/;

/** Parses body text as co-body's strict mode with bourne's `protoAction: 'error'` did. */
export function parseJsonText(raw: string): unknown {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  if (text === '') return {};
  if (!STRICT_JSON_START.test(text)) throw errors.malformedJson('invalid JSON, only supports object and array');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw errors.malformedJson(firstLine((e as Error).message));
  }
  // A `__proto__` key can only be spelled with these characters (or their \u escapes); bodies
  // without either are common and skip the scan.
  if (text.includes('__proto__') || text.includes('\\u')) {
    try {
      scan(value);
    } catch (e) {
      throw errors.malformedJson((e as Error).message);
    }
  }
  return value;
}

// JSON.parse messages can quote parts of the body; keep them short and single-line.
function firstLine(message: string): string {
  return message.split('\n')[0]!.slice(0, 200);
}
