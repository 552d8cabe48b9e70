/** Forwards a request to a kit deployment and pipes its answer back (streams unbuffered). */
import { request, type IncomingMessage, type ServerResponse } from 'node:http';

/** Reads a request body whole. */
export function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Sends JSON. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/**
 * POSTs `body` to `target` with `headers` and pipes the answer to `res`. `transform`, when given,
 * rewrites each chunk of a streamed answer (to add a platform's own events).
 */
export function forward(res: ServerResponse, target: string, headers: Record<string, string>, body: string, preamble?: string): void {
  const up = request(target, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (answer) => {
    const keep: Record<string, string> = {};
    for (const name of ['content-type', 'retry-after', 'cache-control']) {
      const v = answer.headers[name];
      if (typeof v === 'string') keep[name] = v;
    }
    res.writeHead(answer.statusCode ?? 502, keep);
    if (preamble && String(answer.headers['content-type']).startsWith('text/event-stream') && (answer.statusCode ?? 0) < 300) res.write(preamble);
    answer.pipe(res);
  });
  up.on('error', () => res.destroy());
  res.on('close', () => up.destroy());
  up.end(body);
}

/** POSTs `body` to `target` and answers its JSON after `edit` changed it (non-streamed answers). */
export async function forwardJson(res: ServerResponse, target: string, headers: Record<string, string>, body: string, edit: (json: Record<string, unknown>) => void): Promise<void> {
  const answer = await fetch(target, { method: 'POST', headers, body });
  const text = await answer.text();
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
    res.end(text);
    return;
  }
  if (answer.ok) edit(json);
  sendJson(res, answer.status, json);
}
