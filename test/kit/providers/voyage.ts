/**
 * Voyage's embeddings and rerank as a kit handler dialect (base URL `<url>/v1`), per
 * https://docs.voyageai.com/reference: rerank results under `data`, errors as `{detail}`.
 */
import type { HandlerDialect, HandlerReply, HandlerRequest } from '../handler.js';
import { bearerOf, missingFields, notOneOf, rankDocuments, unknownFields } from './checks.js';
import { recordFindings, refuseKey, type Finding } from './findings.js';
import { encodeFloat32Base64, fakeVector } from './media-bytes.js';
import { startProviderUpstream, type ProviderUpstream } from './provider-upstream.js';

/** What the Voyage fake keeps. */
export interface VoyageState { findings: Finding[] }

/** A running Voyage fake. */
export type VoyageUpstream = ProviderUpstream<VoyageState>;

const NAME = 'voyage';

type EmbedBody = { input: string | string[]; model: string; output_dimension?: number; output_dtype?: string; encoding_format?: string; input_type?: string };
type RerankBody = { query: string; documents: string[]; model: string; top_k?: number; return_documents?: boolean };

function embedErrors(body: EmbedBody): string[] {
  const errors = [...unknownFields(body, ['input', 'model', 'input_type', 'truncation', 'output_dimension', 'output_dtype', 'encoding_format']), ...missingFields(body, ['input', 'model'])];
  errors.push(...notOneOf(body.input_type, ['query', 'document', null], 'input_type'), ...notOneOf(body.output_dtype, ['float', 'int8', 'uint8', 'binary', 'ubinary'], 'output_dtype'), ...notOneOf(body.encoding_format, ['base64', null], 'encoding_format'));
  return errors;
}

function embed(body: EmbedBody): HandlerReply {
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  const dims = body.output_dimension ?? 1024;
  const data = inputs.map((t, index) => {
    const v = fakeVector(`${body.input_type ?? ''}:${t}`, dims);
    return { object: 'embedding', embedding: body.encoding_format === 'base64' ? encodeFloat32Base64(v) : v, index };
  });
  return { headers: { 'request-id': 'voy-1' }, json: { object: 'list', data, model: body.model, usage: { total_tokens: inputs.length * 4 } } };
}

/** The Voyage handler dialect, accepting `key`. */
export function voyageHandler(key: string, state: VoyageState): HandlerDialect {
  const check = (req: HandlerRequest, errors: string[], violations: string[]) =>
    recordFindings(state.findings, violations, NAME, req, errors, (e) => ({ status: 400, json: { detail: e.join('; ') } }));
  return {
    name: 'voyage',
    match: (method, url) => method === 'POST' && (url.pathname === '/v1/embeddings' || url.pathname === '/v1/rerank'),
    handle: (req, violations) => {
      if (bearerOf(req) !== key) return refuseKey(violations, NAME, req, { status: 401, json: { detail: 'Provided API key is invalid.' } });
      if (req.path === '/v1/embeddings') {
        const body = req.json as EmbedBody;
        return check(req, embedErrors(body), violations) ?? embed(body);
      }
      const body = req.json as RerankBody;
      const bad = check(req, [...unknownFields(body, ['query', 'documents', 'model', 'top_k', 'return_documents', 'truncation']), ...missingFields(body, ['query', 'documents', 'model'])], violations);
      if (bad) return bad;
      const data = rankDocuments(body.query, body.documents).slice(0, body.top_k ?? body.documents.length)
        .map((r) => (body.return_documents ? { ...r, document: body.documents[r.index] } : r));
      return { json: { object: 'list', data, model: body.model, usage: { total_tokens: 42 } } };
    },
    errorBody: (_status, message) => ({ detail: message }),
  };
}

/** Starts the Voyage fake (default key `pa-test`). */
export async function startVoyageUpstream(options: { key?: string; name?: string } = {}): Promise<VoyageUpstream> {
  const key = options.key ?? 'pa-test';
  const state: VoyageState = { findings: [] };
  return startProviderUpstream(options.name ?? NAME, key, [voyageHandler(key, state)], state);
}
