import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import { errors, GatewayError } from '../../errors/gateway-error.js';

/**
 * Reads a JSON request body: at most `limitBytes` (413 past it, counted as the bytes arrive,
 * so a lying or missing Content-Length changes nothing), gzip/deflate/br request encodings
 * decoded (415 for others), UTF-8, and only an object or array accepted as JSON (400
 * `malformed_json` otherwise). This is the one step every JSON call runs, so it is a plain
 * read and one JSON.parse: koa-body (co-body, inflation, bourne) cost about a tenth of a bare
 * proxy's CPU per request here; koa-body still reads multipart uploads.
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  let text = await readText(decoded(req), limitBytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return undefined;
  const first = firstNonSpace(text);
  if (first !== '{' && first !== '[') throw errors.malformedJson('the body must be a JSON object');
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw errors.malformedJson(((e as Error).message ?? 'parse error').split('\n')[0]!.slice(0, 200));
  }
}

function decoded(req: IncomingMessage): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  switch (encoding) {
    case 'identity': return req;
    case 'gzip': case 'x-gzip': return req.pipe(createGunzip());
    case 'deflate': return req.pipe(createInflate());
    case 'br': return req.pipe(createBrotliDecompress());
    default: throw new GatewayError(415, 'invalid_request_error', 'unsupported_media_type', `Unsupported Content-Encoding '${encoding}': send identity, gzip, deflate or br.`);
  }
}

function readText(stream: Readable, limitBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (e: unknown) => { cleanup(); reject(e); };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        fail(errors.bodyTooLarge(limitBytes));
        // Stop reading; the response (413) still goes out on this connection.
        stream.resume();
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, size).toString('utf8'));
    };
    const onError = (e: Error) => fail(/incorrect header|invalid|unexpected end/i.test(e.message) ? errors.malformedJson('the body is not valid for its Content-Encoding') : e);
    const onAborted = () => fail(errors.malformedJson('the body ended early'));
    function cleanup() {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('aborted', onAborted);
    }
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
    stream.once('aborted', onAborted);
  });
}

function firstNonSpace(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // JSON's whitespace: space, tab, LF, CR.
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return text[i]!;
  }
  return '';
}
