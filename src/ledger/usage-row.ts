import type { RequestRecord } from '../calls/request-record.js';

/** One row of `usage_events`, as queued, journaled and inserted (JSON-safe). */
export interface UsageRow {
  request_id: string;
  /** ISO time the request arrived (millisecond precision; with request_id, the row's key). */
  started_at: string;
  key_id: string | null;
  key_name: string | null;
  team: string | null;
  model: string | null;
  requested_model: string | null;
  provider: string | null;
  upstream: string | null;
  operation: string | null;
  route: string | null;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
  tokens_estimated: boolean;
  /** Decimal string (the column is numeric; never a float in SQL). */
  cost_usd: string;
  status: number | null;
  error_code: string | null;
  latency_ms: number | null;
  ttft_ms: number | null;
  attempts: number;
  streamed: boolean;
  /** Answered from the response cache (cost 0). */
  cache_hit: boolean;
  /** A cache hit: what the answer cost when it was made (decimal string). */
  saved_usd: string;
  /** Input tokens written to the provider's prompt cache. */
  cache_write_tokens: number;
  /** What provider prompt cache reads saved against the full input price (decimal string). */
  prompt_cache_saved_usd: string;
  /** Body bytes received and forwarded (pass-through routes; null elsewhere). */
  request_bytes?: number | null;
  /** Body bytes of the answer passed on (pass-through routes; null elsewhere). */
  response_bytes?: number | null;
}

/** Columns in insert order (the writer's unnest() follows it). */
export const usageColumns: readonly (keyof UsageRow)[] = [
  'request_id', 'started_at', 'key_id', 'key_name', 'team', 'model', 'requested_model', 'provider', 'upstream',
  'operation', 'route', 'input_tokens', 'output_tokens', 'cached_input_tokens', 'reasoning_tokens',
  'tokens_estimated', 'cost_usd', 'status', 'error_code', 'latency_ms', 'ttft_ms', 'attempts', 'streamed',
  'cache_hit', 'saved_usd', 'cache_write_tokens', 'prompt_cache_saved_usd',
  'request_bytes', 'response_bytes',
];

/** Values of the columns a journaled row written before they existed does not have. */
export const usageColumnDefaults: Readonly<Partial<Record<keyof UsageRow, unknown>>> = {
  cache_hit: false, saved_usd: '0', cache_write_tokens: 0, prompt_cache_saved_usd: '0', request_bytes: null, response_bytes: null,
};

/** SQL array type of each column for unnest(). */
export const usageColumnTypes: Readonly<Record<keyof UsageRow, string>> = {
  request_id: 'text', started_at: 'timestamptz', key_id: 'text', key_name: 'text', team: 'text', model: 'text',
  requested_model: 'text', provider: 'text', upstream: 'text', operation: 'text', route: 'text',
  input_tokens: 'int8', output_tokens: 'int8', cached_input_tokens: 'int8', reasoning_tokens: 'int8',
  tokens_estimated: 'bool', cost_usd: 'numeric', status: 'int4', error_code: 'text', latency_ms: 'int4',
  ttft_ms: 'int4', attempts: 'int4', streamed: 'bool', request_bytes: 'int8', response_bytes: 'int8',
  cache_hit: 'bool', saved_usd: 'numeric', cache_write_tokens: 'int8', prompt_cache_saved_usd: 'numeric',
};

/** A billed request is one that named a model or has a cost; others are not ledger rows. */
export function isBilled(r: Readonly<RequestRecord>): boolean {
  return r.costUsd !== undefined || r.model !== undefined;
}

/** The ledger row of a finished request. */
export function rowFromRecord(r: Readonly<RequestRecord>): UsageRow {
  const u = r.usage;
  return {
    request_id: r.requestId,
    started_at: new Date(r.startedAt).toISOString(),
    key_id: r.keyId ?? null,
    key_name: r.keyName ?? null,
    team: r.team ?? null,
    model: r.model ?? null,
    requested_model: r.requestedModel ?? null,
    provider: r.provider ?? null,
    upstream: r.upstream ?? null,
    operation: r.operation ?? null,
    route: r.route ?? null,
    input_tokens: Math.round(u?.input ?? 0),
    output_tokens: Math.round(u?.output ?? 0),
    cached_input_tokens: Math.round(u?.cachedInput ?? 0),
    reasoning_tokens: Math.round(u?.reasoning ?? 0),
    tokens_estimated: u?.estimated ?? false,
    cost_usd: formatUsd(r.costUsd ?? 0),
    status: r.status ?? null,
    error_code: r.errorCode ?? null,
    latency_ms: r.durationMs === undefined ? null : Math.round(r.durationMs),
    ttft_ms: r.ttfbMs === undefined ? null : Math.round(r.ttfbMs),
    attempts: r.attempts,
    streamed: r.streamed,
    cache_hit: r.cache === 'hit' || r.cache === 'semantic-hit',
    saved_usd: formatUsd(r.savedUsd ?? 0),
    cache_write_tokens: Math.round(u?.cacheWriteInput ?? 0),
    prompt_cache_saved_usd: formatUsd(r.promptCacheSavedUsd ?? 0),
    request_bytes: r.requestBytes ?? null,
    response_bytes: r.responseBytes ?? null,
  };
}

/** USD as a plain decimal string with at most 9 places (the column's scale), never exponent form. */
export function formatUsd(usd: number): string {
  if (!Number.isFinite(usd)) return '0';
  return usd.toFixed(9).replace(/\.?0+$/, '') || '0';
}
