/**
 * The Gemini API's non-text endpoints as a kit handler dialect (base URL `<url>`):
 * batchEmbedContents, generateContent with image output, and Veo's predictLongRunning with
 * operation polling and a keyed video download. The key travels in `x-goog-api-key` (a bad key is
 * a 400 API_KEY_INVALID, as upstream). Unknown fields are refused like the real API does.
 * generateContent here is image generation (it must ask for IMAGE output); text generation is the
 * kit's built-in `gemini` dialect on a plain kit upstream.
 */
import type { HandlerDialect, HandlerReply, HandlerRequest } from '../handler.js';
import { notOneOf, unknownFields } from './checks.js';
import { recordFindings, refuseKey, type Finding } from './findings.js';
import { fakeVector, makeMp4Like, makePng } from './media-bytes.js';
import { startProviderUpstream, type ProviderUpstream } from './provider-upstream.js';

/** What the Google fake keeps; tests read it and set its knobs. */
export interface GoogleState {
  /** Request findings (empty arrays = valid requests). */
  findings: Finding[];
  /** How many polls a Veo operation stays `done: false` (default 2). */
  pollsUntilDone: number;
  /** When set, finished operations fail with this message. */
  failWith: string | undefined;
  /** The video bytes finished operations point at. */
  videoBytes: Buffer;
  /** This many next operation polls answer 503 UNAVAILABLE. */
  failPolls: number;
}

/** A running Google fake. */
export type GoogleUpstream = ProviderUpstream<GoogleState>;

const NAME = 'google';
const TASK_TYPES = ['RETRIEVAL_QUERY', 'RETRIEVAL_DOCUMENT', 'SEMANTIC_SIMILARITY', 'CLASSIFICATION', 'CLUSTERING', 'QUESTION_ANSWERING', 'FACT_VERIFICATION', 'CODE_RETRIEVAL_QUERY'];
const CALL = /^\/v1beta\/models\/([^/:]+):(batchEmbedContents|generateContent|predictLongRunning)$/;
const OPERATION = /^\/v1beta\/(models\/[^/]+\/operations\/[^/]+)$/;
const DOWNLOAD = /^\/v1beta\/files\/[^/]+:download$/;
const STATUS: Record<number, string> = { 400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED' };

/** Google's error body for a status. */
export function googleErrorBody(status: number, message: string): unknown {
  return { error: { code: status, message, status: STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT') } };
}

const googleError = (status: number, message: string): HandlerReply => ({ status, json: googleErrorBody(status, message) });

function embedErrors(body: { requests?: Array<Record<string, unknown>> }, model: string): string[] {
  const errors = unknownFields(body, ['requests']);
  if (!Array.isArray(body?.requests)) errors.push('requests must be an array');
  for (const [i, r] of (body.requests ?? []).entries()) {
    errors.push(...unknownFields(r, ['model', 'content', 'taskType', 'title', 'outputDimensionality']).map((e) => `requests[${i}]: ${e}`));
    if (r.model !== `models/${model}`) errors.push(`requests[${i}].model must be models/${model}`);
    const text = (r.content as { parts?: Array<{ text?: unknown }> } | undefined)?.parts?.[0]?.text;
    if (typeof text !== 'string') errors.push(`requests[${i}].content.parts[0].text must be a string`);
    errors.push(...notOneOf(r.taskType, TASK_TYPES, `requests[${i}].taskType`));
  }
  return errors;
}

type ImageBody = { contents?: Array<{ role?: string; parts?: Array<Record<string, unknown>> }>; generationConfig?: Record<string, unknown> };

function imageErrors(body: ImageBody): string[] {
  const errors = unknownFields(body, ['contents', 'generationConfig', 'safetySettings', 'systemInstruction']);
  const parts = body.contents?.[0]?.parts ?? [];
  if (parts.length === 0) errors.push('contents[0].parts must not be empty');
  for (const p of parts) {
    const inline = p.inlineData as { mimeType?: string; data?: string } | undefined;
    if (p.text === undefined && !inline) errors.push('each part needs text or inlineData');
    if (inline && (!inline.mimeType?.startsWith('image/') || typeof inline.data !== 'string')) errors.push('inlineData needs an image mimeType and base64 data');
  }
  const modalities = body.generationConfig?.responseModalities as string[] | undefined;
  if (!modalities?.includes('IMAGE')) errors.push('generationConfig.responseModalities must include IMAGE');
  const imageConfig = (body.generationConfig?.imageConfig ?? {}) as Record<string, unknown>;
  errors.push(...unknownFields(imageConfig, ['aspectRatio', 'imageSize']).map((e) => `imageConfig: ${e}`));
  errors.push(...notOneOf(imageConfig.imageSize, ['1K', '2K', '4K'], 'imageConfig.imageSize'));
  return errors;
}

type VideoBody = { instances?: Array<Record<string, unknown>>; parameters?: Record<string, unknown> };

function videoErrors(body: VideoBody): string[] {
  const errors = unknownFields(body, ['instances', 'parameters']);
  const instance = body.instances?.[0] ?? {};
  errors.push(...unknownFields(instance, ['prompt', 'image', 'lastFrame', 'referenceImages', 'video']));
  if (typeof instance.prompt !== 'string' && !instance.image) errors.push('instances[0] needs a prompt or an image');
  const image = instance.image as { bytesBase64Encoded?: unknown; mimeType?: unknown } | undefined;
  if (image && (typeof image.bytesBase64Encoded !== 'string' || typeof image.mimeType !== 'string')) errors.push('image needs bytesBase64Encoded and mimeType');
  errors.push(...unknownFields(body.parameters ?? {}, ['aspectRatio', 'durationSeconds', 'sampleCount', 'negativePrompt', 'resolution', 'personGeneration', 'enhancePrompt', 'seed']).map((e) => `parameters: ${e}`));
  const duration = body.parameters?.durationSeconds;
  if (duration !== undefined && !Number.isInteger(duration)) errors.push('parameters.durationSeconds must be an integer');
  return errors;
}

/** The Google handler dialect over `state`, accepting `key`. */
export function googleHandler(key: string, state: GoogleState): HandlerDialect {
  const operations = new Map<string, { polls: number; model: string }>();
  const check = (req: HandlerRequest, errors: string[], violations: string[]) =>
    recordFindings(state.findings, violations, NAME, req, errors, (e) => googleError(400, `Invalid JSON payload received. ${e.join('; ')}`));

  const poll = (req: HandlerRequest, name: string): HandlerReply => {
    const entry = operations.get(name);
    if (!entry) return googleError(404, 'Operation not found.');
    if (state.failPolls > 0) {
      state.failPolls--;
      return googleError(503, 'The service is currently unavailable.');
    }
    entry.polls++;
    state.findings.push({ path: req.path, errors: [] });
    if (entry.polls < state.pollsUntilDone) return { json: { name, metadata: {} } };
    if (state.failWith) return { json: { name, done: true, error: { code: 3, message: state.failWith } } };
    // The download URI is on this same server, as the client reached it.
    const uri = `http://${String(req.headers.host)}/v1beta/files/${name.split('/').pop()}:download?alt=media`;
    return { json: { name, done: true, response: { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse', generateVideoResponse: { generatedSamples: [{ video: { uri } }] } } } };
  };

  const call = (req: HandlerRequest, model: string, method: string, violations: string[]): HandlerReply => {
    if (method === 'batchEmbedContents') {
      const body = req.json as { requests?: Array<Record<string, unknown>> };
      const bad = check(req, embedErrors(body, model), violations);
      if (bad) return bad;
      return { json: { embeddings: body.requests!.map((r) => ({ values: fakeVector(String((r.content as { parts: Array<{ text: string }> }).parts[0]!.text), Number(r.outputDimensionality ?? 3072)) })) } };
    }
    if (method === 'generateContent') {
      const body = req.json as ImageBody;
      const bad = check(req, imageErrors(body), violations);
      if (bad) return bad;
      const inputs = (body.contents?.[0]?.parts ?? []).filter((p) => p.inlineData).length;
      return {
        json: {
          candidates: [{ content: { role: 'model', parts: [{ text: `Here is your image (from ${inputs} reference images).` }, { inlineData: { mimeType: 'image/png', data: makePng(4, 4).toString('base64') } }] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1290, totalTokenCount: 1302 },
          modelVersion: model,
        },
      };
    }
    const bad = check(req, videoErrors(req.json as VideoBody), violations);
    if (bad) return bad;
    const name = `models/${model}/operations/op${operations.size + 1}`;
    operations.set(name, { polls: 0, model });
    return { json: { name } };
  };

  return {
    name: 'google-media',
    match: (method, url) => {
      if (method === 'GET') return OPERATION.test(url.pathname) || DOWNLOAD.test(url.pathname);
      return method === 'POST' && CALL.test(url.pathname);
    },
    handle: (req, violations) => {
      if (req.headers['x-goog-api-key'] !== key) {
        return refuseKey(violations, NAME, req, { status: 400, json: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }] } } });
      }
      const op = OPERATION.exec(req.path);
      if (op) return poll(req, op[1]!);
      if (DOWNLOAD.test(req.path)) return { headers: { 'content-type': 'video/mp4' }, body: state.videoBytes };
      const m = CALL.exec(req.path)!;
      return call(req, decodeURIComponent(m[1]!), m[2]!, violations);
    },
    errorBody: googleErrorBody,
  };
}

/** Starts the Google fake (default key `g-test`). */
export async function startGoogleUpstream(options: { key?: string; name?: string } = {}): Promise<GoogleUpstream> {
  const key = options.key ?? 'g-test';
  const state: GoogleState = { findings: [], pollsUntilDone: 2, failWith: undefined, videoBytes: makeMp4Like('veo'), failPolls: 0 };
  return startProviderUpstream(options.name ?? NAME, key, [googleHandler(key, state)], state);
}
