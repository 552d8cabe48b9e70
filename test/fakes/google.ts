import { startFakeServer, type FakeReply, type FakeRequest, type FakeServer } from './fake-server.js';
import { missingFields, notOneOf, unknownFields } from './checks.js';
import { fakeVector, makeMp4Like, makePng } from './media-bytes.js';

/** The fake Gemini API and what it saw. */
export interface FakeGoogle extends FakeServer {
  /** Request findings (empty arrays = valid requests). */
  findings: Array<{ path: string; errors: string[] }>;
  /** How many polls a Veo operation stays `done: false` (default 2). */
  pollsUntilDone: number;
  /** When set, finished operations fail with this message. */
  failWith?: string;
  /** The video bytes finished operations point at. */
  videoBytes: Buffer;
  /** This many next operation polls answer 503 UNAVAILABLE. */
  failPolls: number;
}

const TASK_TYPES = ['RETRIEVAL_QUERY', 'RETRIEVAL_DOCUMENT', 'SEMANTIC_SIMILARITY', 'CLASSIFICATION', 'CLUSTERING', 'QUESTION_ANSWERING', 'FACT_VERIFICATION', 'CODE_RETRIEVAL_QUERY'];

function googleError(status: number, message: string, code: string): FakeReply {
  return { status, json: { error: { code: status, message, status: code } } };
}

/**
 * A fake of the Gemini API's non-text endpoints (base URL `<url>`): batchEmbedContents,
 * generateContent with image output, and Veo's predictLongRunning with operation polling and
 * a keyed video download. The key travels in `x-goog-api-key` (a bad key is a 400
 * API_KEY_INVALID, as upstream). Unknown fields are refused like the real API does.
 */
export async function startFakeGoogle(options: { key?: string } = {}): Promise<FakeGoogle> {
  const key = options.key ?? 'g-test';
  const findings: FakeGoogle['findings'] = [];
  const operations = new Map<string, { polls: number; model: string }>();
  const state = { pollsUntilDone: 2, failWith: undefined as string | undefined, videoBytes: makeMp4Like('veo'), failPolls: 0 };
  const check = (req: FakeRequest, errors: string[]): FakeReply | undefined => {
    findings.push({ path: req.path, errors });
    return errors.length > 0 ? googleError(400, `Invalid JSON payload received. ${errors.join('; ')}`, 'INVALID_ARGUMENT') : undefined;
  };
  const fake = await startFakeServer((req) => {
    if (req.headers['x-goog-api-key'] !== key) return { status: 400, json: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' }] } } };
    const call = /^\/v1beta\/models\/([^/:]+):(\w+)$/.exec(req.path);
    if (req.method === 'POST' && call?.[2] === 'batchEmbedContents') {
      const body = req.json as { requests?: Array<Record<string, unknown>> };
      const errors = unknownFields(body, ['requests']);
      if (!Array.isArray(body?.requests)) errors.push('requests must be an array');
      for (const [i, r] of (body.requests ?? []).entries()) {
        errors.push(...unknownFields(r, ['model', 'content', 'taskType', 'title', 'outputDimensionality']).map((e) => `requests[${i}]: ${e}`));
        if (r.model !== `models/${call[1]}`) errors.push(`requests[${i}].model must be models/${call[1]}`);
        const text = (r.content as { parts?: Array<{ text?: unknown }> } | undefined)?.parts?.[0]?.text;
        if (typeof text !== 'string') errors.push(`requests[${i}].content.parts[0].text must be a string`);
        errors.push(...notOneOf(r.taskType, TASK_TYPES, `requests[${i}].taskType`));
      }
      const bad = check(req, errors);
      if (bad) return bad;
      return { json: { embeddings: body.requests!.map((r) => ({ values: fakeVector(String((r.content as { parts: Array<{ text: string }> }).parts[0]!.text), Number(r.outputDimensionality ?? 3072)) })) } };
    }
    if (req.method === 'POST' && call?.[2] === 'generateContent') {
      const body = req.json as { contents?: Array<{ role?: string; parts?: Array<Record<string, unknown>> }>; generationConfig?: Record<string, unknown> };
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
      const bad = check(req, errors);
      if (bad) return bad;
      const inputs = parts.filter((p) => p.inlineData).length;
      return {
        json: {
          candidates: [{ content: { role: 'model', parts: [{ text: `Here is your image (from ${inputs} reference images).` }, { inlineData: { mimeType: 'image/png', data: makePng(4, 4).toString('base64') } }] }, finishReason: 'STOP', index: 0 }],
          usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1290, totalTokenCount: 1302 },
          modelVersion: call[1],
        },
      };
    }
    if (req.method === 'POST' && call?.[2] === 'predictLongRunning') {
      const body = req.json as { instances?: Array<Record<string, unknown>>; parameters?: Record<string, unknown> };
      const errors = unknownFields(body, ['instances', 'parameters']);
      const instance = body.instances?.[0] ?? {};
      errors.push(...unknownFields(instance, ['prompt', 'image', 'lastFrame', 'referenceImages', 'video']));
      if (typeof instance.prompt !== 'string' && !instance.image) errors.push('instances[0] needs a prompt or an image');
      const image = instance.image as { bytesBase64Encoded?: unknown; mimeType?: unknown } | undefined;
      if (image && (typeof image.bytesBase64Encoded !== 'string' || typeof image.mimeType !== 'string')) errors.push('image needs bytesBase64Encoded and mimeType');
      errors.push(...unknownFields(body.parameters ?? {}, ['aspectRatio', 'durationSeconds', 'sampleCount', 'negativePrompt', 'resolution', 'personGeneration', 'enhancePrompt', 'seed']).map((e) => `parameters: ${e}`));
      const duration = body.parameters?.durationSeconds;
      if (duration !== undefined && !Number.isInteger(duration)) errors.push('parameters.durationSeconds must be an integer');
      const bad = check(req, errors);
      if (bad) return bad;
      const name = `models/${call[1]}/operations/op${operations.size + 1}`;
      operations.set(name, { polls: 0, model: call[1]! });
      return { json: { name } };
    }
    const op = /^\/v1beta\/(models\/[^/]+\/operations\/[^/]+)$/.exec(req.path);
    if (req.method === 'GET' && op) {
      const entry = operations.get(op[1]!);
      if (!entry) return googleError(404, 'Operation not found.', 'NOT_FOUND');
      if (state.failPolls > 0) {
        state.failPolls--;
        return googleError(503, 'The service is currently unavailable.', 'UNAVAILABLE');
      }
      entry.polls++;
      findings.push({ path: req.path, errors: [] });
      if (entry.polls < state.pollsUntilDone) return { json: { name: op[1], metadata: {} } };
      if (state.failWith) return { json: { name: op[1], done: true, error: { code: 3, message: state.failWith } } };
      const file = op[1]!.split('/').pop();
      return { json: { name: op[1], done: true, response: { '@type': 'type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse', generateVideoResponse: { generatedSamples: [{ video: { uri: `${fake.url}/v1beta/files/${file}:download?alt=media` } }] } } } };
    }
    if (req.method === 'GET' && /^\/v1beta\/files\/[^/]+:download$/.test(req.path)) {
      return { headers: { 'content-type': 'video/mp4' }, body: state.videoBytes };
    }
    return googleError(404, `Unknown path ${req.method} ${req.path}`, 'NOT_FOUND');
  });
  // Accessors (not copies) so a test can change the fake's behaviour while it runs.
  return Object.defineProperties(Object.assign(fake, { findings }), {
    pollsUntilDone: { get: () => state.pollsUntilDone, set: (n: number) => { state.pollsUntilDone = n; }, enumerable: true },
    failWith: { get: () => state.failWith, set: (m: string | undefined) => { state.failWith = m; }, enumerable: true },
    videoBytes: { get: () => state.videoBytes, set: (b: Buffer) => { state.videoBytes = b; }, enumerable: true },
    failPolls: { get: () => state.failPolls, set: (n: number) => { state.failPolls = n; }, enumerable: true },
  }) as FakeGoogle;
}
