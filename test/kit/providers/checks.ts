/** Small request checks the provider fakes share: a finding is a string, [] means valid. */
import type { HandlerRequest } from '../handler.js';

/** Fields of a body not in the allowed list. */
export function unknownFields(body: unknown, allowed: readonly string[]): string[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return ['body must be a JSON object'];
  return Object.keys(body).filter((k) => !allowed.includes(k)).map((k) => `unknown field '${k}'`);
}

/** Required fields missing from a body. */
export function missingFields(body: unknown, required: readonly string[]): string[] {
  const o = (body ?? {}) as Record<string, unknown>;
  return required.filter((k) => o[k] === undefined || o[k] === null).map((k) => `missing field '${k}'`);
}

/** A finding when a value is present and not one of the allowed values. */
export function notOneOf(value: unknown, allowed: readonly unknown[], name: string): string[] {
  return value === undefined || allowed.includes(value) ? [] : [`${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`];
}

/** Simple relevance: how many query words a document contains, squashed to 0..1. */
export function lexicalScore(query: string, document: string): number {
  const words = new Set(query.toLowerCase().match(/\w+/g) ?? []);
  const hits = (document.toLowerCase().match(/\w+/g) ?? []).filter((w) => words.has(w)).length;
  return Number((hits / (hits + 1)).toFixed(4));
}

/** Indexes of documents sorted best first (ties: lower index first). */
export function rankDocuments(query: string, documents: readonly string[]): Array<{ index: number; relevance_score: number }> {
  return documents.map((d, index) => ({ index, relevance_score: lexicalScore(query, d) })).sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
}

/** The bearer token of a request ('' when absent). */
export function bearerOf(req: HandlerRequest): string {
  return String(req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
}
