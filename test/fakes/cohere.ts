import { bearerOf, startFakeServer, type FakeReply, type FakeRequest, type FakeServer } from './fake-server.js';
import { missingFields, notOneOf, rankDocuments, unknownFields } from './checks.js';
import { fakeVector } from './media-bytes.js';

/** The fake Cohere v2 API and what it saw. */
export interface FakeCohere extends FakeServer { findings: Array<{ path: string; errors: string[] }> }

const INPUT_TYPES = ['search_document', 'search_query', 'classification', 'clustering', 'image'];
const TYPES = ['float', 'int8', 'uint8', 'binary', 'ubinary', 'base64'];

/**
 * A fake of Cohere's v2 embed and rerank (base URL `<url>`), per
 * https://docs.cohere.com/reference/embed and /rerank: `input_type` required for v3+ models,
 * embeddings keyed by type, rerank without `return_documents`, errors as `{message}`.
 */
export async function startFakeCohere(options: { key?: string } = {}): Promise<FakeCohere> {
  const key = options.key ?? 'co-test';
  const findings: FakeCohere['findings'] = [];
  const check = (req: FakeRequest, errors: string[]): FakeReply | undefined => {
    findings.push({ path: req.path, errors });
    return errors.length > 0 ? { status: 400, json: { message: `invalid request: ${errors.join('; ')}` } } : undefined;
  };
  const fake = await startFakeServer((req) => {
    if (bearerOf(req) !== key) return { status: 401, json: { message: 'invalid api token' } };
    if (req.method === 'POST' && req.path === '/v2/embed') {
      const body = req.json as { model: string; texts?: string[]; input_type?: string; embedding_types?: string[]; output_dimension?: number; truncate?: string };
      const errors = [...unknownFields(body, ['model', 'input_type', 'texts', 'images', 'inputs', 'embedding_types', 'output_dimension', 'max_tokens', 'truncate']), ...missingFields(body, ['model', 'input_type'])];
      errors.push(...notOneOf(body.input_type, INPUT_TYPES, 'input_type'), ...notOneOf(body.truncate, ['NONE', 'START', 'END'], 'truncate'), ...notOneOf(body.output_dimension, [256, 512, 1024, 1536], 'output_dimension'));
      if (!Array.isArray(body.texts) || body.texts.some((t) => typeof t !== 'string')) errors.push('texts must be an array of strings');
      for (const t of body.embedding_types ?? []) errors.push(...notOneOf(t, TYPES, 'embedding_types[]'));
      const bad = check(req, errors);
      if (bad) return bad;
      const dims = body.output_dimension ?? 1536;
      const embeddings: Record<string, unknown> = {};
      for (const type of body.embedding_types ?? ['float']) {
        embeddings[type] = body.texts!.map((t) => {
          const v = fakeVector(t, dims);
          return type === 'int8' ? v.map((x) => Math.round(x * 127)) : type === 'uint8' ? v.map((x) => Math.round((x + 1) * 127.5)) : v;
        });
      }
      return { json: { id: 'emb-1', response_type: 'embeddings_by_type', embeddings, texts: body.texts, meta: { api_version: { version: '2' }, billed_units: { input_tokens: body.texts!.length * 3 } } } };
    }
    if (req.method === 'POST' && req.path === '/v2/rerank') {
      const body = req.json as { model: string; query: string; documents: string[]; top_n?: number };
      const errors = [...unknownFields(body, ['model', 'query', 'documents', 'top_n', 'max_tokens_per_doc', 'priority']), ...missingFields(body, ['model', 'query', 'documents'])];
      const bad = check(req, errors);
      if (bad) return bad;
      const results = rankDocuments(body.query, body.documents).slice(0, body.top_n ?? body.documents.length);
      return { json: { id: 'rr-1', results, meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } } } };
    }
    return { status: 404, json: { message: `Not found: ${req.method} ${req.path}` } };
  });
  return Object.assign(fake, { findings });
}
