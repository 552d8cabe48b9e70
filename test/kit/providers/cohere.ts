/**
 * Cohere's v2 embed and rerank as a kit handler dialect (base URL `<url>`), per
 * https://docs.cohere.com/reference/embed and /rerank: `input_type` required for v3+ models,
 * embeddings keyed by type, rerank without `return_documents`, errors as `{message}`.
 */
import type { HandlerDialect, HandlerReply } from '../handler.js';
import { missingFields, notOneOf, rankDocuments, unknownFields } from './checks.js';
import { embedRerankHandler } from './embed-rerank.js';
import type { Finding } from './findings.js';
import { fakeVector } from './media-bytes.js';
import { startProviderUpstream, type ProviderUpstream } from './provider-upstream.js';

/** What the Cohere fake keeps. */
export interface CohereState { findings: Finding[] }

/** A running Cohere fake. */
export type CohereUpstream = ProviderUpstream<CohereState>;

const NAME = 'cohere';
const INPUT_TYPES = ['search_document', 'search_query', 'classification', 'clustering', 'image'];
const TYPES = ['float', 'int8', 'uint8', 'binary', 'ubinary', 'base64'];

type EmbedBody = { model: string; texts?: string[]; input_type?: string; embedding_types?: string[]; output_dimension?: number; truncate?: string };
type RerankBody = { model: string; query: string; documents: string[]; top_n?: number };

function embedErrors(body: EmbedBody): string[] {
  const errors = [...unknownFields(body, ['model', 'input_type', 'texts', 'images', 'inputs', 'embedding_types', 'output_dimension', 'max_tokens', 'truncate']), ...missingFields(body, ['model', 'input_type'])];
  errors.push(...notOneOf(body.input_type, INPUT_TYPES, 'input_type'), ...notOneOf(body.truncate, ['NONE', 'START', 'END'], 'truncate'), ...notOneOf(body.output_dimension, [256, 512, 1024, 1536], 'output_dimension'));
  if (!Array.isArray(body.texts) || body.texts.some((t) => typeof t !== 'string')) errors.push('texts must be an array of strings');
  for (const t of body.embedding_types ?? []) errors.push(...notOneOf(t, TYPES, 'embedding_types[]'));
  return errors;
}

function embed(body: EmbedBody): HandlerReply {
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

/** The Cohere handler dialect, accepting `key`. */
export function cohereHandler(key: string, state: CohereState): HandlerDialect {
  return embedRerankHandler<EmbedBody, RerankBody>({
    name: NAME,
    key,
    findings: state.findings,
    unauthorized: { status: 401, json: { message: 'invalid api token' } },
    refusal: (e) => ({ status: 400, json: { message: `invalid request: ${e.join('; ')}` } }),
    errorBody: (_status, message) => ({ message }),
    embed: { path: '/v2/embed', errors: embedErrors, reply: embed },
    rerank: {
      path: '/v2/rerank',
      errors: (body) => [...unknownFields(body, ['model', 'query', 'documents', 'top_n', 'max_tokens_per_doc', 'priority']), ...missingFields(body, ['model', 'query', 'documents'])],
      reply: (body) => {
        const results = rankDocuments(body.query, body.documents).slice(0, body.top_n ?? body.documents.length);
        return { json: { id: 'rr-1', results, meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } } } };
      },
    },
  });
}

/** Starts the Cohere fake (default key `co-test`). */
export async function startCohereUpstream(options: { key?: string; name?: string } = {}): Promise<CohereUpstream> {
  const key = options.key ?? 'co-test';
  const state: CohereState = { findings: [] };
  return startProviderUpstream(options.name ?? NAME, key, [cohereHandler(key, state)], state);
}
