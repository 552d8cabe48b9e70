import { bearerOf, startFakeServer, type FakeReply, type FakeRequest, type FakeServer } from './fake-server.js';
import { missingFields, notOneOf, rankDocuments, unknownFields } from './checks.js';
import { encodeFloat32Base64, fakeVector } from './media-bytes.js';

/** The fake Jina API and what it saw. */
export interface FakeJina extends FakeServer { findings: Array<{ path: string; errors: string[] }> }

/**
 * A fake of Jina's embeddings (task adapters, `embedding_type`) and rerank (documents echoed as
 * `{text}`), base URL `<url>/v1`; errors as `{detail}`.
 */
export async function startFakeJina(options: { key?: string } = {}): Promise<FakeJina> {
  const key = options.key ?? 'jina-test';
  const findings: FakeJina['findings'] = [];
  const check = (req: FakeRequest, errors: string[]): FakeReply | undefined => {
    findings.push({ path: req.path, errors });
    return errors.length > 0 ? { status: 422, json: { detail: errors.join('; ') } } : undefined;
  };
  const fake = await startFakeServer((req) => {
    if (bearerOf(req) !== key) return { status: 401, json: { detail: 'Unauthorized' } };
    if (req.method === 'POST' && req.path === '/v1/embeddings') {
      const body = req.json as { model: string; input: string[]; task?: string; dimensions?: number; embedding_type?: string };
      const errors = [...unknownFields(body, ['model', 'input', 'task', 'dimensions', 'embedding_type', 'late_chunking', 'truncate', 'normalized']), ...missingFields(body, ['model', 'input'])];
      errors.push(...notOneOf(body.task, ['retrieval.query', 'retrieval.passage', 'text-matching', 'classification', 'separation'], 'task'), ...notOneOf(body.embedding_type, ['float', 'base64', 'binary', 'ubinary'], 'embedding_type'));
      if (!Array.isArray(body.input)) errors.push('input must be an array');
      const bad = check(req, errors);
      if (bad) return bad;
      const data = body.input.map((t, index) => {
        const v = fakeVector(`${body.task ?? ''}:${t}`, body.dimensions ?? 1024);
        return { object: 'embedding', index, embedding: body.embedding_type === 'base64' ? encodeFloat32Base64(v) : v };
      });
      return { json: { model: body.model, object: 'list', usage: { total_tokens: 8, prompt_tokens: 8 }, data } };
    }
    if (req.method === 'POST' && req.path === '/v1/rerank') {
      const body = req.json as { model: string; query: string; documents: string[]; top_n?: number; return_documents?: boolean };
      const errors = [...unknownFields(body, ['model', 'query', 'documents', 'top_n', 'return_documents']), ...missingFields(body, ['model', 'query', 'documents'])];
      const bad = check(req, errors);
      if (bad) return bad;
      const results = rankDocuments(body.query, body.documents).slice(0, body.top_n ?? body.documents.length)
        .map((r) => (body.return_documents === false ? r : { ...r, document: { text: body.documents[r.index] } }));
      return { json: { model: body.model, usage: { total_tokens: 30, prompt_tokens: 30 }, results } };
    }
    return { status: 404, json: { detail: 'Not Found' } };
  });
  return Object.assign(fake, { findings });
}
