/**
 * OpenAI's non-text endpoints as kit handler dialects (base URL `<url>/v1`): embeddings (float or
 * little-endian float32 base64), image generations (JSON) and edits (multipart), speech (binary,
 * streamed in chunks), transcriptions (multipart), files (multipart, content readable back), the
 * Videos API (jobs polled to completion) and the realtime WebSocket (openai-realtime.ts). Every
 * POST is validated against OpenAI's OpenAPI document; an invalid one gets OpenAI's 400 envelope,
 * a `findings` entry with its errors and a kit violation.
 */
import type { HandlerDialect, HandlerReply, HandlerRequest } from '../handler.js';
import { bearerOf } from './checks.js';
import { recordFindings, refuseKey, type Finding } from './findings.js';
import { encodeFloat32Base64, fakeVector, makeMp3Like, makeMp4Like, makePng } from './media-bytes.js';
import { openAiError, openAiErrorBody } from './openai-errors.js';
import { openAiRealtime, type RealtimeConnection, type RealtimeServer } from './openai-realtime.js';
import { validateOpenAiRequest } from './openai-spec.js';
import { startProviderUpstream, type ProviderUpstream } from './provider-upstream.js';

/** What the OpenAI fake keeps; tests read it (and set `videoPollsUntilDone`). */
export interface OpenAiState {
  /** Validation findings against test/fixtures/openapi/openai.json, per POST (empty = valid). */
  findings: Finding[];
  /** Files stored by POST /v1/files, by id. */
  files: Map<string, { bytes: Buffer; filename: string; purpose: string }>;
  /** Realtime WebSocket handshakes (refused ones too). */
  realtime: RealtimeConnection[];
  /** The bytes /v1/audio/speech answers (whatever the response_format). */
  speechBytes: Buffer;
  /** Videos API jobs, by id (`polls` counts GET /v1/videos/{id}). */
  videos: Map<string, { body: Record<string, unknown>; polls: number }>;
  /** Polls before a video job completes (default 2). */
  videoPollsUntilDone: number;
  /** The bytes GET /v1/videos/{id}/content answers. */
  videoBytes: Buffer;
}

/** A running OpenAI fake. */
export type OpenAiUpstream = ProviderUpstream<OpenAiState>;

const SPEECH_TYPES: Record<string, string> = { mp3: 'audio/mpeg', opus: 'audio/opus', aac: 'audio/aac', flac: 'audio/flac', wav: 'audio/wav', pcm: 'audio/pcm' };
const FILE_CONTENT = /^\/v1\/files\/([^/]+)\/content$/;
const VIDEO = /^\/v1\/videos\/([^/]+)(\/content)?$/;
const NAME = 'openai';

type Route = (req: HandlerRequest, violations: string[]) => HandlerReply;

/** The POST routes (each validated against the OpenAPI document first). */
function postRoutes(state: OpenAiState): Record<string, Route> {
  return {
    '/v1/embeddings': (req) => {
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
    '/v1/images/generations': (req) => {
      const body = req.json as { n?: number; output_format?: string; size?: string };
      const png = makePng(2, 2).toString('base64');
      return { json: { created: 1_700_000_000, data: Array.from({ length: body.n ?? 1 }, () => ({ b64_json: png })), output_format: body.output_format ?? 'png', size: body.size ?? '1024x1024', usage: { input_tokens: 10, input_tokens_details: { text_tokens: 10, image_tokens: 0 }, output_tokens: 100, total_tokens: 110 } } };
    },
    '/v1/images/edits': (req, violations) => {
      const images = (req.form?.files ?? []).filter((f) => f.field === 'image' || f.field === 'image[]');
      if (images.length === 0) return refuse(violations, req, "Missing required parameter: 'image'.");
      const n = Number(req.form?.fields.n?.[0] ?? 1);
      const png = makePng(3, 3).toString('base64');
      return { json: { created: 1_700_000_000, data: Array.from({ length: n }, () => ({ b64_json: png })), usage: { input_tokens: 50, input_tokens_details: { text_tokens: 10, image_tokens: 40 }, output_tokens: 100, total_tokens: 150 } } };
    },
    '/v1/audio/speech': (req) => {
      const format = (req.json as { response_format?: string }).response_format ?? 'mp3';
      const bytes = state.speechBytes;
      const chunks = [bytes.subarray(0, 16 * 1024), bytes.subarray(16 * 1024, 32 * 1024), bytes.subarray(32 * 1024)];
      return { headers: { 'content-type': SPEECH_TYPES[format] ?? 'audio/mpeg' }, chunks };
    },
    '/v1/audio/transcriptions': (req, violations) => {
      const file = req.form?.files.find((f) => f.field === 'file');
      if (!file) return refuse(violations, req, "Missing required parameter: 'file'.");
      if (!/\.(flac|mp3|mp4|mpeg|mpga|m4a|ogg|wav|webm)$/.test(file.filename)) return refuse(violations, req, `Invalid file format. Supported formats: ['flac', 'm4a', 'mp3', 'mp4', 'mpeg', 'mpga', 'oga', 'ogg', 'wav', 'webm']`);
      return { json: { text: `heard ${file.bytes.length} bytes of ${file.filename}`, usage: { type: 'duration', seconds: 2 } } };
    },
    '/v1/videos': (req) => {
      const id = `video_fake${state.videos.size + 1}`;
      state.videos.set(id, { body: req.json as Record<string, unknown>, polls: 0 });
      return { json: videoObject(state, id) };
    },
    '/v1/files': (req, violations) => {
      const file = req.form?.files.find((f) => f.field === 'file');
      if (!file) return refuse(violations, req, "Missing required parameter: 'file'.");
      const id = `file-fake${state.files.size + 1}`;
      const purpose = req.form?.fields.purpose?.[0] ?? '';
      state.files.set(id, { bytes: file.bytes, filename: file.filename, purpose });
      return { json: { id, object: 'file', bytes: file.bytes.length, created_at: 1_700_000_000, filename: file.filename, purpose, status: 'processed' } };
    },
  };
}

/** A 400 the spec allows but OpenAI's route refuses (a violation: the gateway sent it). */
function refuse(violations: string[], req: HandlerRequest, message: string): HandlerReply {
  violations.push(`${NAME}: ${req.method} ${req.path}: ${message}`);
  return openAiError(400, message);
}

/** A Videos API job as GET /v1/videos/{id} shows it. */
function videoObject(state: OpenAiState, id: string): Record<string, unknown> {
  const v = state.videos.get(id)!;
  const done = v.polls >= state.videoPollsUntilDone;
  return {
    id, object: 'video', model: v.body.model ?? 'sora-2', status: done ? 'completed' : v.polls === 0 ? 'queued' : 'in_progress', progress: done ? 100 : 50,
    created_at: 1_700_000_000, completed_at: done ? 1_700_000_100 : null, expires_at: null, prompt: v.body.prompt ?? null,
    size: v.body.size ?? '1280x720', seconds: v.body.seconds ?? '4', remixed_from_video_id: null, error: null,
  };
}

/** GET /v1/files/{id}/content and the Videos API polls and downloads (nothing to validate). */
function getResource(state: OpenAiState, req: HandlerRequest): HandlerReply {
  const content = FILE_CONTENT.exec(req.path);
  if (content) {
    const f = state.files.get(content[1]!);
    return f ? { headers: { 'content-type': 'application/octet-stream' }, body: f.bytes } : openAiError(404, 'No such File object.');
  }
  const video = VIDEO.exec(req.path)!;
  const entry = state.videos.get(video[1]!);
  if (!entry) return openAiError(404, 'Video not found.');
  if (video[2]) return entry.polls >= state.videoPollsUntilDone ? { headers: { 'content-type': 'video/mp4' }, body: state.videoBytes } : openAiError(400, 'Video is not ready.');
  entry.polls++;
  return { json: videoObject(state, video[1]!) };
}

/** The OpenAI handler dialects over `state`, accepting `key`. */
export function openAiHandlers(key: string, state: OpenAiState, realtime: RealtimeServer): HandlerDialect[] {
  const routes = postRoutes(state);
  const api: HandlerDialect = {
    name: 'openai-media',
    match: (method, url) => (method === 'POST' && url.pathname in routes) || (method === 'GET' && (FILE_CONTENT.test(url.pathname) || VIDEO.test(url.pathname))),
    handle: (req, violations) => {
      if (bearerOf(req) !== key) return refuseKey(violations, NAME, req, openAiError(401, 'Incorrect API key provided.', 'invalid_request_error', 'invalid_api_key'));
      if (req.method === 'GET') return getResource(state, req);
      const errors = validateOpenAiRequest(req, req.path.replace(/^\/v1/, ''));
      const refused = recordFindings(state.findings, violations, NAME, req, errors, (e) => openAiError(400, `Invalid request: ${e.join('; ')}`));
      return refused ?? routes[req.path]!(req, violations);
    },
    errorBody: openAiErrorBody,
  };
  return [api, realtime.dialect];
}

/** Starts the OpenAI fake (default key `sk-test`). */
export async function startOpenAiUpstream(options: { key?: string; name?: string } = {}): Promise<OpenAiUpstream> {
  const key = options.key ?? 'sk-test';
  const state: OpenAiState = {
    findings: [],
    files: new Map(),
    realtime: [],
    speechBytes: makeMp3Like(48 * 1024),
    videos: new Map(),
    videoPollsUntilDone: 2,
    videoBytes: makeMp4Like('sora'),
  };
  let upstream: OpenAiUpstream | undefined;
  const realtime = openAiRealtime(key, state.realtime, () => upstream?.violations ?? []);
  // OpenAI's API also serves chat and responses: the kit's built-in text dialects answer those.
  upstream = await startProviderUpstream(options.name ?? NAME, key, openAiHandlers(key, state, realtime), state, { builtIns: ['openai-chat', 'openai-responses'], onClose: () => realtime.close() });
  return upstream;
}
