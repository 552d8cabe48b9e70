import { bearerOf, startFakeServer, type FakeReply, type FakeRequest, type FakeServer } from './fake-server.js';
import { missingFields, notOneOf, rankDocuments, unknownFields } from './checks.js';
import { encodeFloat32Base64, fakeVector } from './media-bytes.js';

/** The fake Voyage API and what it saw. */
export interface FakeVoyage extends FakeServer { findings: Array<{ path: string; errors: string[] }> }

/**
 * A fake of Voyage's embeddings and rerank (base URL `<url>/v1`), per
 * https://docs.voyageai.com/reference: rerank results under `data`, errors as `{detail}`.
 */
export async function startFakeVoyage(options: { key?: string } = {}): Promise<FakeVoyage> {
  const key = options.key ?? 'pa-test';
  const findings: FakeVoyage['findings'] = [];
  const check = (req: FakeRequest, errors: string[]): FakeReply | undefined => {
    findings.push({ path: req.path, errors });
    return errors.length > 0 ? { status: 400, json: { detail: errors.join('; ') } } : undefined;
  };
  const fake = await startFakeServer((req) => {
    if (bearerOf(req) !== key) return { status: 401, json: { detail: 'Provided API key is invalid.' } };
    if (req.method === 'POST' && req.path === '/v1/embeddings') {
      const body = req.json as { input: string | string[]; model: string; output_dimension?: number; output_dtype?: string; encoding_format?: string; input_type?: string };
      const errors = [...unknownFields(body, ['input', 'model', 'input_type', 'truncation', 'output_dimension', 'output_dtype', 'encoding_format']), ...missingFields(body, ['input', 'model'])];
      errors.push(...notOneOf(body.input_type, ['query', 'document', null], 'input_type'), ...notOneOf(body.output_dtype, ['float', 'int8', 'uint8', 'binary', 'ubinary'], 'output_dtype'), ...notOneOf(body.encoding_format, ['base64', null], 'encoding_format'));
      const bad = check(req, errors);
      if (bad) return bad;
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      const dims = body.output_dimension ?? 1024;
      const data = inputs.map((t, index) => {
        const v = fakeVector(`${body.input_type ?? ''}:${t}`, dims);
        return { object: 'embedding', embedding: body.encoding_format === 'base64' ? encodeFloat32Base64(v) : v, index };
      });
      return { headers: { 'request-id': 'voy-1' }, json: { object: 'list', data, model: body.model, usage: { total_tokens: inputs.length * 4 } } };
    }
    if (req.method === 'POST' && req.path === '/v1/rerank') {
      const body = req.json as { query: string; documents: string[]; model: string; top_k?: number; return_documents?: boolean };
      const errors = [...unknownFields(body, ['query', 'documents', 'model', 'top_k', 'return_documents', 'truncation']), ...missingFields(body, ['query', 'documents', 'model'])];
      const bad = check(req, errors);
      if (bad) return bad;
      const data = rankDocuments(body.query, body.documents).slice(0, body.top_k ?? body.documents.length)
        .map((r) => (body.return_documents ? { ...r, document: body.documents[r.index] } : r));
      return { json: { object: 'list', data, model: body.model, usage: { total_tokens: 42 } } };
    }
    return { status: 404, json: { detail: 'Not Found' } };
  });
  return Object.assign(fake, { findings });
}
