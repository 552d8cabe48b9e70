import { createHash } from 'node:crypto';
import type { Conversation } from '../../codecs/internal.js';
import type { CacheScope } from '../../config/types.js';

/** Who is asking, for the entry's scope. */
export interface CacheIdentity {
  /** The calling key's owner id (`key:<id>` or its hash). */
  readonly owner: string;
  /** The key's team id (managed keys), if any. */
  readonly team?: string;
}

// Body fields that never change the answer (how it is delivered, who asked, labels), and the
// content fields the decoded conversation already holds.
const DELIVERY_FIELDS = new Set(['stream', 'stream_options', 'user', 'metadata', 'store', 'service_tier_hint']);
const CONTENT_FIELDS = new Set(['messages', 'input', 'system', 'instructions', 'tools']);

/**
 * The cache key of a request: a sha256 of its meaning. For text operations that is the decoded
 * conversation (model, messages or input, system, tools, tool choice, response format, sampling
 * parameters) without `stream`, `includeUsage`, `user` and `metadata`, so the same question asked
 * plain and streamed shares one entry; plus every other body field (seed, penalties, logit bias
 * ...), which the internal form does not hold but which change the answer. Other operations hash
 * their body without the delivery fields. The operation and the scope (key, team or everyone)
 * are part of the key, so entries never cross them.
 */
export function cacheKey(operation: string, scope: CacheScope, who: CacheIdentity, body: Record<string, unknown>, conversation?: Conversation): string {
  const hash = createHash('sha256');
  hash.update(`v1\n${operation}\n${scopeId(scope, who)}\n`);
  if (conversation) {
    const { stream: _s, includeUsage: _u, user: _user, metadata: _m, ...meaning } = conversation;
    hash.update(canonicalJson(meaning));
    hash.update('\n');
  }
  const rest: Record<string, unknown> = {};
  for (const name in body) {
    if (DELIVERY_FIELDS.has(name) || (conversation && CONTENT_FIELDS.has(name))) continue;
    rest[name] = body[name];
  }
  hash.update(canonicalJson(rest));
  return hash.digest('hex');
}

function scopeId(scope: CacheScope, who: CacheIdentity): string {
  if (scope === 'global') return 'global';
  // A key without a team shares with itself only.
  if (scope === 'team' && who.team !== undefined) return `team:${who.team}`;
  return `key:${who.owner}`;
}

/** JSON with object keys sorted, so two spellings of one object hash the same. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + canonicalJson(value[i]);
    return out + ']';
  }
  const record = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const name of Object.keys(record).sort()) {
    if (record[name] === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(name) + ':' + canonicalJson(record[name]);
    first = false;
  }
  return out + '}';
}

/**
 * Whether a request must not be cached: it reads or creates state (a stored Responses answer
 * that later calls reference, `previous_response_id`, background runs, uploaded files), or asks
 * for what a stored answer does not keep (several choices, log probabilities, audio output).
 */
export function isUncacheable(operation: string, body: Record<string, unknown>): boolean {
  if (operation === 'responses' && (body.store !== false || body.previous_response_id !== undefined || body.background === true || body.conversation !== undefined)) return true;
  if (typeof body.n === 'number' && body.n > 1) return true;
  if (body.logprobs === true || body.top_logprobs !== undefined) return true;
  if (Array.isArray(body.modalities) && body.modalities.includes('audio')) return true;
  return mentionsFile(body, 0);
}

// Uploaded files are state: a file id answered once need not mean the same bytes later.
function mentionsFile(value: unknown, depth: number): boolean {
  if (depth > 12 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => mentionsFile(v, depth + 1));
  const record = value as Record<string, unknown>;
  if (typeof record.file_id === 'string') return true;
  const source = record.source as Record<string, unknown> | undefined;
  if (source && typeof source === 'object' && source.type === 'file') return true;
  for (const name in record) if (mentionsFile(record[name], depth + 1)) return true;
  return false;
}
