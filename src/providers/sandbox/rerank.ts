import { errors } from '../../errors/gateway-error.js';
import type { OperationCall, OperationResult } from '../types.js';
import { readInteger } from './body-fields.js';
import { countTokens } from './token-estimate.js';

/** BM25 parameters (the usual Robertson/Sparck Jones defaults). */
const K1 = 1.2;
const B = 0.75;

/**
 * `rerank`: real lexical relevance. Documents are scored with Okapi BM25 against the query
 * (idf = ln(1 + (N - n + 0.5) / (n + 0.5))), then mapped to 0..1 by s / (s + 1) so a score does
 * not depend on the other documents' scores. Results best first (ties: lower index first),
 * limited by `top_k` or `top_n`; `return_documents: true` adds `document: {text}`.
 */
export async function rerankDocuments(call: OperationCall): Promise<OperationResult> {
  const body = call.body;
  const query = body.query;
  const documents = body.documents;
  if (typeof query !== 'string' || query.length === 0) throw errors.invalidRequest("'query' must be a non-empty string.", 'invalid_query');
  if (!Array.isArray(documents) || documents.length === 0 || !documents.every((d) => typeof d === 'string')) {
    throw errors.invalidRequest("'documents' must be a non-empty array of strings.", 'invalid_documents');
  }
  const limit = readInteger(body, 'top_k', 1, Number.MAX_SAFE_INTEGER) ?? readInteger(body, 'top_n', 1, Number.MAX_SAFE_INTEGER) ?? documents.length;
  const scores = scoreBm25(query, documents as string[]);
  const ranked = scores
    .map((score, index) => ({ index, score }))
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .slice(0, limit)
    .map(({ index, score }) => {
      const result: Record<string, unknown> = { index, relevance_score: Number((score / (score + 1)).toFixed(6)) };
      if (body.return_documents === true) result.document = { text: documents[index] };
      return result;
    });
  const queryTokens = countTokens(query);
  const totalTokens = (documents as string[]).reduce((n, d) => n + queryTokens + countTokens(d), 0);
  return { kind: 'json', body: { object: 'list', model: call.model.id, results: ranked, usage: { total_tokens: totalTokens } } };
}

/** Lower-cased word terms of a text. */
function listTerms(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The raw BM25 score of each document for the query. */
export function scoreBm25(query: string, documents: readonly string[]): number[] {
  const docs = documents.map(listTerms);
  const averageLength = docs.reduce((n, d) => n + d.length, 0) / docs.length || 1;
  const documentFrequency = new Map<string, number>();
  for (const terms of docs) for (const term of new Set(terms)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const queryTerms = [...new Set(listTerms(query))];
  return docs.map((terms) => {
    const frequency = new Map<string, number>();
    for (const term of terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
    let score = 0;
    for (const term of queryTerms) {
      const tf = frequency.get(term) ?? 0;
      if (tf === 0) continue;
      const n = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
      score += idf * (tf * (K1 + 1)) / (tf + K1 * (1 - B + B * terms.length / averageLength));
    }
    return score;
  });
}
