import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake provider received (headers as received, body size, when bytes arrived). */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bytes: number;
  /** performance.now() of the first body byte (undefined for an empty body). */
  firstByteAt?: number;
  body: Buffer;
}

/** A fake OpenAI/Anthropic API speaking the wire formats of the endpoints the tests forward. */
export interface FakeProvider {
  url: string;
  received: Received[];
  /** Resolves once `bytes` body bytes of the current upload have arrived. */
  uploadReached(bytes: number): Promise<void>;
  /** The exact SSE bytes the streamed answer sends. */
  readonly sse: string;
  close(): Promise<void>;
}

const KEY_HEADER = { openai: 'authorization', anthropic: 'x-api-key' } as const;

/**
 * OpenAI's Files and Batches API (upload, create, poll, download), Anthropic's streamed
 * Messages answer and token counting, an endpoint that never answers (`/v1/hang`), checking
 * the provider key on every call (401 in the provider's own shape otherwise).
 */
export async function startFakeProvider(flavour: 'openai' | 'anthropic', apiKey: string): Promise<FakeProvider> {
  const received: Received[] = [];
  const files = new Map<string, { filename: string; purpose: string; bytes: Buffer }>();
  const batches = new Map<string, { id: string; polls: number; input_file_id: string; output_file_id?: string; endpoint: string }>();
  let uploadProgress = 0;
  const waiters: Array<{ bytes: number; resolve: () => void }> = [];
  const sse = [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_pt_1","type":"message","role":"assistant","model":"claude-pt","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello \\u00e9\\u00e8 "}}\n\n',
    'event: ping\ndata: {"type": "ping"}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"world"}}\n\n',
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}\n\n',
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ].join('');

  const server: Server = createServer((req, res) => {
    const entry: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, bytes: 0, body: Buffer.alloc(0) };
    received.push(entry);
    const chunks: Buffer[] = [];
    uploadProgress = 0;
    req.on('data', (c: Buffer) => {
      entry.firstByteAt ??= performance.now();
      entry.bytes += c.length;
      uploadProgress += c.length;
      chunks.push(c);
      for (const w of waiters.splice(0)) {
        if (uploadProgress >= w.bytes) w.resolve();
        else waiters.push(w);
      }
    });
    if (req.url === '/v1/hang') return; // never answers, never reads on
    req.on('end', () => {
      entry.body = Buffer.concat(chunks);
      const keyHeader = req.headers[KEY_HEADER[flavour]];
      const expected = flavour === 'openai' ? `Bearer ${apiKey}` : apiKey;
      if (keyHeader !== expected) return json(res, 401, flavour === 'openai'
        ? { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }
        : { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } });
      route(req, res, entry.body);
    });
  });

  function route(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    if (req.method === 'POST' && path === '/v1/files') {
      const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(String(req.headers['content-type']))!;
      const parts = parseMultipart(body, boundary[1] ?? boundary[2]!);
      const file = parts.find((p) => p.name === 'file')!;
      const id = `file-${randomBytes(6).toString('hex')}`;
      files.set(id, { filename: file.filename ?? 'upload', purpose: parts.find((p) => p.name === 'purpose')?.data.toString() ?? '', bytes: file.data });
      return json(res, 200, fileObject(id));
    }
    const content = /^\/v1\/files\/([^/]+)\/content$/.exec(path);
    if (req.method === 'GET' && content) {
      const f = files.get(content[1]!);
      if (!f) return json(res, 404, { error: { message: 'No such File object', type: 'invalid_request_error', param: 'id', code: null } });
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-request-id': 'req_upstream_content' });
      return void res.end(f.bytes);
    }
    const fileGet = /^\/v1\/files\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && fileGet && files.has(fileGet[1]!)) return json(res, 200, fileObject(fileGet[1]!));
    if (req.method === 'POST' && path === '/v1/batches') {
      const b = JSON.parse(body.toString()) as { input_file_id: string; endpoint: string; completion_window: string };
      if (!files.has(b.input_file_id)) return json(res, 400, { error: { message: 'input file not found', type: 'invalid_request_error', param: 'input_file_id', code: null } });
      const id = `batch_${randomBytes(6).toString('hex')}`;
      batches.set(id, { id, polls: 0, input_file_id: b.input_file_id, endpoint: b.endpoint });
      return json(res, 200, batchObject(batches.get(id)!));
    }
    const batchGet = /^\/v1\/batches\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && batchGet) {
      const b = batches.get(batchGet[1]!);
      if (!b) return json(res, 404, { error: { message: 'No such batch', type: 'invalid_request_error', param: null, code: null } });
      b.polls++;
      // Completed on the second poll, with an output file of one result line per input line.
      if (b.polls >= 2 && !b.output_file_id) {
        const input = files.get(b.input_file_id)!.bytes.toString().trim().split('\n');
        const out = input.map((line) => {
          const custom = (JSON.parse(line) as { custom_id: string }).custom_id;
          return JSON.stringify({ id: `batch_req_${custom}`, custom_id: custom, response: { status_code: 200, request_id: 'req_x', body: { id: 'chatcmpl-x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: `answer ${custom}` }, finish_reason: 'stop' }] } }, error: null });
        }).join('\n') + '\n';
        const fid = `file-out-${randomBytes(4).toString('hex')}`;
        files.set(fid, { filename: 'batch_output.jsonl', purpose: 'batch_output', bytes: Buffer.from(out) });
        b.output_file_id = fid;
      }
      return json(res, 200, batchObject(b));
    }
    if (req.method === 'POST' && path === '/v1/messages') {
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': 'req_anthropic_1' });
      // Written in uneven pieces with pauses, so a buffering proxy would be seen re-chunking nothing.
      const pieces = [sse.slice(0, 37), sse.slice(37, 400), sse.slice(400)];
      let i = 0;
      const next = (): void => {
        if (i === pieces.length) return void res.end();
        res.write(pieces[i++]);
        setTimeout(next, 15);
      };
      return next();
    }
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') return json(res, 200, { input_tokens: 11 });
    if (req.method === 'POST' && path === '/v1/upload-sink') return json(res, 200, { bytes: body.length });
    json(res, 404, { error: { message: `Unknown path ${req.method} ${path}`, type: 'invalid_request_error', param: null, code: 'unknown_url' } });
  }

  function fileObject(id: string): Record<string, unknown> {
    const f = files.get(id)!;
    return { id, object: 'file', bytes: f.bytes.length, created_at: 1_700_000_000, filename: f.filename, purpose: f.purpose, status: 'processed' };
  }

  function batchObject(b: { id: string; input_file_id: string; output_file_id?: string; endpoint: string }): Record<string, unknown> {
    return {
      id: b.id, object: 'batch', endpoint: b.endpoint, errors: null, input_file_id: b.input_file_id, completion_window: '24h',
      status: b.output_file_id ? 'completed' : 'in_progress', output_file_id: b.output_file_id ?? null, error_file_id: null,
      created_at: 1_700_000_000, request_counts: { total: 2, completed: b.output_file_id ? 2 : 0, failed: 0 },
    };
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    sse,
    uploadReached: (bytes) => new Promise<void>((resolve) => {
      if (uploadProgress >= bytes) resolve();
      else waiters.push({ bytes, resolve });
    }),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_upstream_${randomBytes(4).toString('hex')}` });
  res.end(JSON.stringify(body));
}

/** The parts of a multipart/form-data body (enough for the SDKs' uploads). */
function parseMultipart(body: Buffer, boundary: string): Array<{ name: string; filename?: string; data: Buffer }> {
  const out: Array<{ name: string; filename?: string; data: Buffer }> = [];
  const delimiter = Buffer.from(`--${boundary}`);
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const headerEnd = body.indexOf('\r\n\r\n', start);
    const next = body.indexOf(delimiter, headerEnd);
    const headers = body.subarray(start, headerEnd).toString();
    const name = /name="([^"]*)"/.exec(headers)?.[1] ?? '';
    const filename = /filename="([^"]*)"/.exec(headers)?.[1];
    out.push({ name, filename, data: body.subarray(headerEnd + 4, next - 2) });
    at = next;
  }
  return out;
}
