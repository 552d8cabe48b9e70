import { createHash } from 'node:crypto';
import type { ModelSpec, RouteSpec } from '../config/types.js';
import { specPath } from '../config/cross-check.js';
import { withEverySpelling } from '../codecs/shared/parameter-spellings.js';
import type { CachedBody } from './runtime.js';

/** Builds a SPEC 2.1 model card from a catalog entry; only fields the catalog knows. */
export function buildCard(m: ModelSpec, operations: readonly string[]): Record<string, unknown> {
  const card: Record<string, unknown> = {
    id: m.id,
    object: 'model',
    created: m.created ?? 0,
    owned_by: m.owned_by ?? m.provider,
  };
  if (m.name) card.name = m.name;
  if (m.description) card.description = m.description;
  if (m.context_length) card.context_length = m.context_length;
  card.supported_operations = [...new Set([...operations, ...(m.capabilities ?? [])])];
  card.supported_endpoints = [...m.endpoints];
  // Every spelling the gateway accepts for a listed capability, so the list filter and the card agree.
  card.supported_parameters = withEverySpelling(m.parameters ?? []);
  if (m.architecture) card.architecture = m.architecture;
  if (m.pricing) card.pricing = { ...m.pricing };
  card.top_provider = {
    ...(m.context_length ? { context_length: m.context_length } : {}),
    ...(m.max_output_tokens ? { max_completion_tokens: m.max_output_tokens } : {}),
    is_moderated: false,
    ...(m.top_provider ?? {}),
  };
  if (m.reasoning) card.reasoning = m.reasoning;
  card.per_request_limits = m.per_request_limits ?? null;
  return card;
}

/** Operation names of the POST routes a model's endpoints point at. */
export function operationsOf(m: ModelSpec, routes: readonly RouteSpec[]): string[] {
  const byPath = new Map(routes.filter((r) => r.method === 'POST').map((r) => [specPath(r.path), r.operation]));
  return m.endpoints.map((e) => byPath.get(e)).filter((o): o is string => o !== undefined);
}

/** Serializes once and derives a strong ETag from the exact bytes. */
export function cacheBody(value: unknown): CachedBody {
  const body = JSON.stringify(value);
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
}
