import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { bearerOf, openAiError, startFakeServer, type FakeReply, type FakeRequest, type FakeServer } from './fake-server.js';
import { encodeFloat32Base64, fakeVector, makeMp3Like, makeMp4Like, makePng } from './media-bytes.js';
import { validateOpenAiRequest } from './openai-spec.js';

/** A realtime WebSocket the fake accepted (or refused). */
export interface RealtimeConnection { url: string; headers: IncomingMessage['headers']; frames: Array<{ data: Buffer; binary: boolean }>; socket?: WebSocket }

/** The fake OpenAI API and what it saw. */
export interface FakeOpenAi extends FakeServer {
  /** Validation findings against test/fixtures/openapi/openai.json, per request (empty = valid). */
  findings: Array<{ path: string; errors: string[] }>;
  /** Files stored by POST /v1/files, by id. */
  files: Map<string, { bytes: Buffer; filename: string; purpose: string }>;
  /** Realtime WebSocket handshakes (refused ones too). */
  realtime: RealtimeConnection[];
  /** The bytes /v1/audio/speech answers (per response_format). */
  speechBytes: Buffer;
  /** The next request on this path gets this answer instead. */
  failNext(path: string, reply: FakeReply): void;
  /** Videos API jobs, by id (`polls` counts GET /v1/videos/{id}). */
  videos: Map<string, { body: Record<string, unknown>; polls: number }>;
  /** Polls before a video job completes (default 2). */
  videoPollsUntilDone: number;
  /** The bytes GET /v1/videos/{id}/content answers. */
  videoBytes: Buffer;
}

const SPEECH_TYPES: Record<string, string> = { mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' };

/**
 * A faithful fake of the OpenAI endpoints the gateway maps (base URL `<url>/v1`): embeddings
 * (float or little-endian float32 base64), images generations (JSON) and edits (multipart),
 * speech (binary, streamed in chunks), transcriptions (multipart), files (multipart, content
 * readable back) and the realtime WebSocket. Every request is validated against OpenAI's
 * OpenAPI document; an invalid one gets OpenAI's 400 envelope and is listed in `findings`.
 */
export async function startFakeOpenAi(options: { key?: string } = {}): Promise<FakeOpenAi> {
  const key = options.key ?? 'sk-test';
  const findings: FakeOpenAi['findings'] = [];
  const files: FakeOpenAi['files'] = new Map();
  const failures = new Map<string, FakeReply>();
  const speechBytes = makeMp3Like(48 * 1024);
  const videos: FakeOpenAi['videos'] = new Map();
  const videoState = { pollsUntilDone: 2 };
  const videoBytes = makeMp4Like('sora');
  const videoObject = (id: string): Record<string, unknown> => {
    const v = videos.get(id)!;
    const done = v.polls >= videoState.pollsUntilDone;
    return {
      id, object: 'video', model: v.body.model ?? 'sora-2', status: done ? 'completed' : v.polls === 0 ? 'queued' : 'in_progress', progress: done ? 100 : 50,
      created_at: 1_700_000_000, completed_at: done ? 1_700_000_100 : null, expires_at: null, prompt: v.body.prompt ?? null,
      size: v.body.size ?? '1280x720', seconds: v.body.seconds ?? '4', remixed_from_video_id: null, error: null,
    };
  };
  const routes: Record<string, (req: FakeRequest) => FakeReply> = {
    'POST /v1/embeddings': (req) => {
      const body = req.json as { input: string | string[]; model: string; dimensions?: number; encoding_format?: string };
      const inputs = Array.isArray(body.input) ? body.input.map(String) : [String(body.input)];
      const dims = body.dimensions ?? (body.model === 'text-embedding-3-large' ? 3072 : 1536);
      const data = inputs.map((text, index) => {
        const v = fakeVector(text, dims);
        return { object: 'embedding', index, embedding: body.encoding_format === 'base64' ? encodeFloat32Base64(v) : v };
      });
      const tokens = inputs.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);
      return { json: { object: 'list', data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } } };
    },
    'POST /v1/images/generations': (req) => {
      const body = req.json as { n?: number; output_format?: string; size?: string };
      const png = makePng(2, 2).toString('base64');
      return { json: { created: 1_700_000_000, data: Array.from({ length: body.n ?? 1 }, () => ({ b64_json: png })), output_format: body.output_format ?? 'png', size: body.size ?? '1024x1024', usage: { input_tokens: 10, input_tokens_details: { text_tokens: 10, image_tokens: 0 }, output_tokens: 100, total_tokens: 110 } } };
    },
    'POST /v1/images/edits': (req) => {
      const images = (req.form?.files ?? []).filter((f) => f.field === 'image' || f.field === 'image[]');
      if (images.length === 0) return openAiError(400, "Missing required parameter: 'image'.");
      const n = Number(req.form?.fields.n?.[0] ?? 1);
      const png = makePng(3, 3).toString('base64');
      return { json: { created: 1_700_000_000, data: Array.from({ length: n }, () => ({ b64_json: png })), usage: { input_tokens: 50, input_tokens_details: { text_tokens: 10, image_tokens: 40 }, output_tokens: 100, total_tokens: 150 } } };
    },
    'POST /v1/audio/speech': (req) => {
      const format = (req.json as { response_format?: string }).response_format ?? 'mp3';
      const chunks = [speechBytes.subarray(0, 16 * 1024), speechBytes.subarray(16 * 1024, 32 * 1024), speechBytes.subarray(32 * 1024)];
      return { headers: { 'content-type': SPEECH_TYPES[format] ?? 'audio/mpeg' }, chunks };
    },
    'POST /v1/audio/transcriptions': (req) => {
      const file = req.form?.files.find((f) => f.field === 'file');
      if (!file) return openAiError(400, "Missing required parameter: 'file'.");
      if (!/\.(flac|mp3|mp4|mpeg|mpga|m4a|ogg|wav|webm)$/.test(file.filename)) return openAiError(400, `Invalid file format. Supported formats: ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm']`);
      return { json: { text: `heard ${file.bytes.length} bytes of ${file.filename}`, usage: { type: 'duration', seconds: 2 } } };
    },
    'POST /v1/videos': (req) => {
      const id = `video_fake${videos.size + 1}`;
      videos.set(id, { body: req.json as Record<string, unknown>, polls: 0 });
      return { json: videoObject(id) };
    },
    'POST /v1/files': (req) => {
      const file = req.form?.files.find((f) => f.field === 'file');
      if (!file) return openAiError(400, "Missing required parameter: 'file'.");
      const id = `file-fake${files.size + 1}`;
      const purpose = req.form?.fields.purpose?.[0] ?? '';
      files.set(id, { bytes: file.bytes, filename: file.filename, purpose });
      return { json: { id, object: 'file', bytes: file.bytes.length, created_at: 1_700_000_000, filename: file.filename, purpose, status: 'processed' } };
    },
  };
  const specPath = (req: FakeRequest): string => req.path.replace(/^\/v1/, '');
  const fake = await startFakeServer((req) => {
    const failure = failures.get(req.path);
    if (failure) {
      failures.delete(req.path);
      return failure;
    }
    if (bearerOf(req) !== key) return openAiError(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key');
    const fileContent = /^\/v1\/files\/([^/]+)\/content$/.exec(req.path);
    if (req.method === 'GET' && fileContent) {
      const f = files.get(fileContent[1]!);
      return f ? { headers: { 'content-type': 'application/octet-stream' }, body: f.bytes } : openAiError(404, 'No such File object.');
    }
    const video = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(req.path);
    if (req.method === 'GET' && video) {
      const entry = videos.get(video[1]!);
      if (!entry) return openAiError(404, 'Video not found.');
      if (video[2]) return entry.polls >= videoState.pollsUntilDone ? { headers: { 'content-type': 'video/mp4' }, body: videoBytes } : openAiError(400, 'Video is not ready.');
      entry.polls++;
      return { json: videoObject(video[1]!) };
    }
    const route = routes[`${req.method} ${req.path}`];
    if (!route) return openAiError(404, `Unknown request URL: ${req.method} ${req.path}.`);
    const errors = validateOpenAiRequest(req, specPath(req));
    findings.push({ path: req.path, errors });
    if (errors.length > 0) return openAiError(400, `Invalid request: ${errors.join('; ')}`);
    return route(req);
  });

  const realtime: RealtimeConnection[] = [];
  const wss = new WebSocketServer({ noServer: true });
  fake.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const connection: RealtimeConnection = { url: req.url ?? '', headers: req.headers, frames: [] };
    realtime.push(connection);
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/v1/realtime' || String(req.headers.authorization ?? '') !== `Bearer ${key}` || !url.searchParams.get('model')) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      connection.socket = ws;
      ws.send(JSON.stringify({ type: 'session.created', event_id: 'event_1', session: { object: 'realtime.session', model: url.searchParams.get('model') } }));
      ws.on('message', (data, binary) => {
        const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
        connection.frames.push({ data: bytes, binary });
        if (binary) ws.send(bytes, { binary: true });
        else ws.send(JSON.stringify({ type: 'fake.echo', received: JSON.parse(bytes.toString('utf8')) as unknown }));
      });
    });
  });
  const close = fake.close;
  const rig = Object.defineProperty(fake, 'videoPollsUntilDone', { get: () => videoState.pollsUntilDone, set: (n: number) => { videoState.pollsUntilDone = n; }, enumerable: true });
  return Object.assign(rig as FakeServer & { videoPollsUntilDone: number }, {
    findings,
    files,
    realtime,
    speechBytes,
    videos,
    videoBytes,
    failNext: (path: string, reply: FakeReply) => { failures.set(path, reply); },
    close: async () => {
      for (const c of wss.clients) c.terminate();
      wss.close();
      await close();
    },
  });
}
