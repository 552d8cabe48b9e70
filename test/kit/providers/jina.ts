/**
 * Jina's embeddings (task adapters, `embedding_type`) and rerank (documents echoed as `{text}`)
 * as a kit handler dialect, base URL `<url>/v1`; errors as `{detail}`, validation errors 422.
 */
import type { HandlerDialect, HandlerReply } from '../handler.js';
import { missingFields, notOneOf, rankDocuments, unknownFields } from './checks.js';
import { embedRerankHandler } from './embed-rerank.js';
import type { Finding } from './findings.js';
import { encodeFloat32Base64, fakeVector } from './media-bytes.js';
import { startProviderUpstream, type ProviderUpstream } from './provider-upstream.js';

/** What the Jina fake keeps. */
export interface JinaState { findings: Finding[] }

/** A running Jina fake. */
export type JinaUpstream = ProviderUpstream<JinaState>;

const NAME = 'jina';

type EmbedBody = { model: string; input: string[]; task?: string; dimensions?: number; embedding_type?: string };
type RerankBody = { model: string; query: string; documents: string[]; top_n?: number; return_documents?: boolean };

function embedErrors(body: EmbedBody): string[] {
  const errors = [...unknownFields(body, ['model', 'input', 'task', 'dimensions', 'embedding_type', 'late_chunking', 'truncate', 'normalized']), ...missingFields(body, ['model', 'input'])];
  errors.push(...notOneOf(body.task, ['retrieval.query', 'retrieval.passage', 'text-matching', 'classification', 'separation'], 'task'), ...notOneOf(body.embedding_type, ['float', 'base64', 'binary', 'ubinary'], 'embedding_type'));
  if (!Array.isArray(body.input)) errors.push('input must be an array');
  return errors;
}

function embed(body: EmbedBody): HandlerReply {
  const data = body.input.map((t, index) => {
    const v = fakeVector(`${body.task ?? ''}:${t}`, body.dimensions ?? 1024);
    return { object: 'embedding', index, embedding: body.embedding_type === 'base64' ? encodeFloat32Base64(v) : v };
  });
  return { json: { model: body.model, object: 'list', usage: { total_tokens: 8, prompt_tokens: 8 }, data } };
}

/** The Jina handler dialect, accepting `key`. */
export function jinaHandler(key: string, state: JinaState): HandlerDialect {
  return embedRerankHandler<EmbedBody, RerankBody>({
    name: NAME,
    key,
    findings: state.findings,
    unauthorized: { status: 401, json: { detail: 'Unauthorized' } },
    refusal: (e) => ({ status: 422, json: { detail: e.join('; ') } }),
    errorBody: (_status, message) => ({ detail: message }),
    embed: { path: '/v1/embeddings', errors: embedErrors, reply: embed },
    rerank: {
      path: '/v1/rerank',
      errors: (body) => [...unknownFields(body, ['model', 'query', 'documents', 'top_n', 'return_documents']), ...missingFields(body, ['model', 'query', 'documents'])],
      reply: (body) => {
        const results = rankDocuments(body.query, body.documents).slice(0, body.top_n ?? body.documents.length)
          .map((r) => (body.return_documents === false ? r : { ...r, document: { text: body.documents[r.index] } }));
        return { json: { model: body.model, usage: { total_tokens: 30, prompt_tokens: 30 }, results } };
      },
    },
  });
}

/** Starts the Jina fake (default key `jina-test`). */
export async function startJinaUpstream(options: { key?: string; name?: string } = {}): Promise<JinaUpstream> {
  const key = options.key ?? 'jina-test';
  const state: JinaState = { findings: [] };
  return startProviderUpstream(options.name ?? NAME, key, [jinaHandler(key, state)], state);
}
