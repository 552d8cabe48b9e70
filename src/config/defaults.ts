import type { GatewayConfig } from './types.js';

/** Values used where gateway.yaml says nothing. */
export const configDefaults: Omit<GatewayConfig, 'providers' | 'models'> = {
  server: { host: '127.0.0.1', port: 8080, log_level: 'info', trust_proxy: false, shutdown_grace_s: 30 },
  auth: { keys_env: 'GATEWAY_API_KEYS', keys: [], admin_keys: [], admin_keys_env: 'GATEWAY_ADMIN_KEYS' },
  ledger: { journal: '.gateway/ledger-journal.jsonl', batch_size: 500, flush_interval_ms: 1000, queue_limit: 10_000, key_cache_ttl_ms: 5000 },
  limits: {
    body_bytes: 25 * 1024 * 1024,
    anonymous_discovery: { requests: 120, window_seconds: 60 },
    fetch: { allow_private: false, max_bytes: 20 * 1024 * 1024, timeout_ms: 15_000 },
  },
  store: { url: 'memory', on_error: 'open' },
  files: { dir: '.gateway/files', default_provider: 'sandbox', max_bytes: 25 * 1024 * 1024 },
  realtime: { url_ttl_seconds: 300 },
  observability: { metrics: { public: false, key_label: true }, tracing: {} },
  cache: {
    enabled: false, store: 'memory', ttl_s: 3600, max_entry_bytes: 1_048_576, max_total_bytes: 268_435_456, scope: 'key',
    operations: ['chat.completions', 'messages', 'responses', 'embeddings', 'rerank'],
  },
};

/** Fills defaults section by section (one level of nesting), without mutating the input. */
export function applyDefaults(data: Record<string, unknown>): GatewayConfig {
  const out: Record<string, unknown> = { ...data };
  for (const [section, defaults] of Object.entries(configDefaults)) {
    const given = (data[section] ?? {}) as Record<string, unknown>;
    const merged: Record<string, unknown> = { ...(defaults as Record<string, unknown>) };
    for (const [k, v] of Object.entries(given)) {
      const d = merged[k];
      merged[k] = isPlainObject(d) && isPlainObject(v) ? { ...d, ...v } : v === '' && d !== undefined ? d : v;
    }
    out[section] = merged;
  }
  const server = out.server as Record<string, unknown>;
  if (server.public_url === '') delete server.public_url;
  const realtime = out.realtime as Record<string, unknown>;
  if (realtime.secret === '') delete realtime.secret;
  const tracing = (out.observability as Record<string, Record<string, unknown>>).tracing!;
  if (tracing.otlp_endpoint === '') delete tracing.otlp_endpoint;
  const ledger = out.ledger as Record<string, unknown>;
  if (ledger.url === '') delete ledger.url;
  out.providers = data.providers ?? {};
  out.models = data.models ?? [];
  return out as unknown as GatewayConfig;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
