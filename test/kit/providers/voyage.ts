/**
 * Voyage's embeddings and rerank as a kit handler dialect (base URL `<url>/v1`), per
 * https://docs.voyageai.com/reference: rerank results under `data`, errors as `{detail}`.
 */
import type { HandlerDialect, HandlerReply } from '../handler.js';
import { missingFields, notOneOf, rankDocuments, unknownFields } from './checks.js';
import { embedRerankHandler } from './embed-rerank.js';
import type { Finding } from './findings.js';
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
  return embedRerankHandler<EmbedBody, RerankBody>({
    name: NAME,
    key,
    findings: state.findings,
    unauthorized: { status: 401, json: { detail: 'Provided API key is invalid.' } },
    refusal: (e) => ({ status: 400, json: { detail: e.join('; ') } }),
    errorBody: (_status, message) => ({ detail: message }),
    embed: { path: '/v1/embeddings', errors: embedErrors, reply: embed },
    rerank: {
      path: '/v1/rerank',
      errors: (body) => [...unknownFields(body, ['query', 'documents', 'model', 'top_k', 'return_documents', 'truncation']), ...missingFields(body, ['query', 'documents', 'model'])],
      reply: (body) => {
        const data = rankDocuments(body.query, body.documents).slice(0, body.top_k ?? body.documents.length)
          .map((r) => (body.return_documents ? { ...r, document: body.documents[r.index] } : r));
        return { json: { object: 'list', data, model: body.model, usage: { total_tokens: 42 } } };
      },
    },
  });
}

/** Starts the Voyage fake (default key `pa-test`). */
export async function startVoyageUpstream(options: { key?: string; name?: string } = {}): Promise<VoyageUpstream> {
  const key = options.key ?? 'pa-test';
  const state: VoyageState = { findings: [] };
  return startProviderUpstream(options.name ?? NAME, key, [voyageHandler(key, state)], state);
}
