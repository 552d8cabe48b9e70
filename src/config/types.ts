/**
 * Plain, frozen data read from gateway.yaml and routes/*.yaml after `${VAR}` substitution.
 * Never holds functions; the compile step turns it into a Runtime.
 * The published meta-schemas (schemas/*.schema.json) are the authoritative description.
 */

/** One endpoint, from one routes/<name>.yaml file. */
export interface RouteSpec {
  /** File the route was read from (for diagnostics). */
  file: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Koa-router path, e.g. `/v1/models/:provider/:model`. */
  path: string;
  /**
   * `key`: an API key is required; `none`: anonymous (rate limited per client address);
   * `admin`: an `auth.admin_keys` key; `admin-or-key`: either (the handler scopes what a client key sees).
   */
  auth: 'key' | 'none' | 'admin' | 'admin-or-key';
  /** Error body style: `default` (SPEC 2.5) or `messages` (SPEC 2.6). */
  envelope: 'default' | 'messages';
  /** Accepted request content types (POST); the first is the canonical one. */
  content_types: string[];
  /** Named behaviour that serves the route: `model-call`, `list-models`, `get-model`, `upload-file`, `poll-job` ... */
  handler: string;
  /** Operation name used by model catalog and providers, e.g. `chat.completions`. */
  operation: string;
  /** Client text format codec (text operations only), e.g. `openai-chat`. */
  surface?: string;
  /** Name of the body field that asks for streaming (e.g. `stream`). */
  stream_field?: string;
  /** JSON Schema of the request body (JSON encoding). */
  schema?: Record<string, unknown>;
  /** JSON Schema for the fields of a multipart/form-data body, when accepted. */
  multipart_schema?: Record<string, unknown>;
  /** Tunable parameters of this route, dropped for a model that does not list them. */
  parameters?: string[];
  /** Content fields beyond the required ones (e.g. `system`): never dropped as unsupported parameters. */
  payload_fields?: string[];
  /** Short human description, shown by `gateway routes` and docs. */
  summary?: string;
  /** Pass-through to a provider's own API (`operation: proxy`, handler `proxy`). */
  proxy?: ProxySpec;
}

/** The `proxy:` block of a pass-through route (`operation: proxy`). */
export interface ProxySpec {
  /** Provider whose base URL and credentials are used. */
  provider: string;
  /** Leading part of the request path removed before it is appended to `upstream_base`. */
  strip_prefix?: string;
  /** Base URL of the upstream; empty/unset: the origin of the provider's base URL. */
  upstream_base?: string;
  /** Allowlist of upstream path globs (`*` matches any characters, `/` included). */
  allow?: string[];
  /** Flat USD charge per request (decimal string) against the key's budget. */
  charge_usd?: string;
  /** Largest body held to be signed, for a provider whose credentials sign the body (`auth: aws`); default 10 MiB. */
  max_signed_body_bytes?: number;
}

/** A provider: where and how to reach one upstream (or the built-in sandbox). */
export interface ProviderSpec {
  /** Named implementation: `sandbox`, `openai`, `anthropic`, `gemini`, `openai-responses`, ... */
  type: string;
  /** Default public base URL, written as the provider's official SDK expects it. */
  base_url?: string;
  /** Environment variable overriding base_url (default `<NAME>_BASE_URL`). */
  base_url_env?: string;
  /** Environment variable holding the key (default `<NAME>_API_KEY`). Unset = provider disabled. Short form of `auth: {type: api_key, api_key_env}`. */
  api_key_env?: string;
  /** Where the provider's credentials come from (API key, AWS, Google, Azure); default: `api_key_env`. */
  auth?: AuthBlock;
  /** The cloud the provider's wire format is served from: its URLs, body envelope and credentials. */
  platform?: 'bedrock' | 'vertex' | 'azure';
  /** AWS region (Bedrock). */
  region?: string;
  /** Google Cloud project (Vertex AI). */
  project?: string;
  /** Google Cloud location (Vertex AI); `global` uses the host without a region prefix. */
  location?: string;
  /** Extra headers sent on every upstream call. */
  headers?: Record<string, string>;
  /** Upstream timeout (ms). */
  timeout_ms?: number;
  /** Options of the named implementation (e.g. anthropic_version). */
  options?: Record<string, unknown>;
  /** Non-text operations: operation name -> mapping (issue 4 vocabulary). */
  operations?: Record<string, Record<string, unknown>>;
  display_name?: string;
  /** Overrides of the top-level `routing` block for this provider's calls. */
  routing?: RoutingSpec;
  /** Several keys / base URLs / regions of this provider, chosen by weight. */
  upstreams?: UpstreamSpec[];
}

/** One deployment of a provider (`providers.<name>.upstreams[]`). */
export interface UpstreamSpec {
  name: string;
  /** Variable holding this deployment's key (default: the provider's). */
  api_key_env?: string;
  /** Variable holding this deployment's base URL (default: the provider's). */
  base_url_env?: string;
  /** Relative share of calls (default 1). */
  weight?: number;
  /** This deployment's AWS region (default: the provider's). */
  region?: string;
  /** This deployment's Google Cloud location (default: the provider's). */
  location?: string;
}

/**
 * `providers.<name>.auth`: where credentials come from. Cloud kinds are fetched once, cached
 * and refreshed before they expire (src/providers/auth/); secrets are named by variable, never written.
 */
export type AuthBlock = ApiKeyAuth | AwsAuth | GoogleAuthSpec | AzureAuth;

/** A static key from a variable, in the dialect's own header or in `header: prefix<key>`. */
export interface ApiKeyAuth { type: 'api_key'; api_key_env: string; header?: string; prefix?: string }

/** AWS SigV4; without keys, the AWS default credential chain. */
export interface AwsAuth {
  type: 'aws';
  access_key_id_env?: string;
  secret_access_key_env?: string;
  session_token_env?: string;
  /** Role assumed through STS with the credentials found. */
  role_arn?: string;
  /** Variable overriding STS's endpoint. */
  sts_url_env?: string;
}

/** Google OAuth2 access tokens (Application Default Credentials, or a credentials file). */
export interface GoogleAuthSpec {
  type: 'google';
  /** Variable naming a service-account or external_account JSON file. */
  credentials_file_env?: string;
  /** Variable overriding the OAuth2 token endpoint (tests, private endpoints). */
  token_url_env?: string;
}

/** Microsoft Entra ID tokens (DefaultAzureCredential chain), or an `api-key` when its variable is set. */
export interface AzureAuth {
  type: 'azure';
  api_key_env?: string;
  /** Variable overriding the Entra authority host (tests, sovereign clouds). */
  authority_host_env?: string;
  /** Token scope (default https://cognitiveservices.azure.com/.default). */
  scope?: string;
}

/** Retries, deadlines and breaker of upstream calls (`routing`, overridable per provider and model). */
export interface RoutingSpec {
  retry?: {
    attempts?: number;
    on?: Array<number | 'connect_error' | 'timeout'>;
    backoff_ms?: { initial?: number; max?: number };
    retry_after_max_s?: number;
  };
  timeouts?: { connect_ms?: number; first_byte_ms?: number; idle_ms?: number; total_ms?: number };
  breaker?: { failures?: number; window_s?: number; cooldown_s?: number; when_all_open?: 'try' | 'refuse' };
}

/** A router model's `route`: targets chosen by a strategy. */
export interface RouteStrategySpec {
  strategy: 'fallback' | 'weighted' | 'cheapest' | 'fastest';
  targets: Array<string | { model: string; weight?: number }>;
  hedge_after_ms?: number;
}

/** One model of the catalog. */
export interface ModelSpec {
  /** Canonical id `<provider>/<model>`. */
  id: string;
  /** The provider serving the model; empty for a router model (`route`). */
  provider: string;
  /** The provider's own model name (default: the part after the slash). */
  upstream?: string;
  name?: string;
  description?: string;
  created?: number;
  owned_by?: string;
  context_length?: number;
  max_output_tokens?: number;
  /** SPEC 4.1 paths the model serves, exactly as written there. */
  endpoints: string[];
  /** Extra capability tags (streaming, tools, vision, reasoning ...). */
  capabilities?: string[];
  /** Request parameters the model accepts; others are dropped before the upstream call. */
  parameters?: string[];
  /** USD per unit as decimal strings (OpenRouter keys: prompt, completion, request, image, ...). */
  pricing?: Record<string, string>;
  architecture?: Record<string, unknown>;
  reasoning?: Record<string, unknown>;
  per_request_limits?: Record<string, unknown> | null;
  top_provider?: Record<string, unknown>;
  /** Hidden models are callable but not listed in discovery. */
  hidden?: boolean;
  /** Models tried in order when this one cannot answer. */
  fallbacks?: string[];
  /** Send a second attempt to the next target when the first sent no byte by then. */
  hedge_after_ms?: number;
  /** Overrides of `routing` for this model's calls. */
  routing?: RoutingSpec;
  /** A router model (no provider): its targets and strategy. */
  route?: RouteStrategySpec;
  /** Name of the output-limit field same-format calls send (reasoning models: `max_completion_tokens`). */
  max_tokens_field?: 'max_tokens' | 'max_completion_tokens';
  /** The response cache for this model (over the top-level `cache` block). */
  cache?: CacheOverride;
  /** `auto`: Anthropic cache breakpoints on long system prompts and tool lists the client did not mark. */
  prompt_cache?: 'auto' | 'off';
}

/** A per model / key switch of the response cache (`cache: { enabled, ttl_s }`). */
export interface CacheOverride { enabled?: boolean; ttl_s?: number }

/** Who shares response cache entries. */
export type CacheScope = 'key' | 'team' | 'global';

/** `cache.semantic`: a miss on the exact key looks up the nearest stored prompt by embedding. */
export interface SemanticCacheConfig {
  /** An embeddings model of the catalog; empty = exact matches only. */
  embedding_model?: string;
  /** Least cosine similarity of a hit (default 0.95). */
  threshold?: number;
  /** Bound of the in-memory index: prompts kept per instance (default 10000). */
  max_entries?: number;
}

/** The top-level `cache:` block: the response cache. */
export interface CacheConfig {
  /** Off by default; models and keys switch it with their own `cache:`. */
  enabled: boolean;
  /** `memory` (this instance, LRU) or `redis` (store.url's Redis, shared by the fleet). */
  store: 'memory' | 'redis';
  ttl_s: number;
  max_entry_bytes: number;
  /** Memory store's bound (LRU by bytes). */
  max_total_bytes: number;
  scope: CacheScope;
  /** Route operations whose answers are cached. */
  operations: string[];
  /** Semantic cache (nearest stored prompt by embedding). */
  semantic?: SemanticCacheConfig;
}

/** An API key declared in gateway.yaml (hash only, never the key). */
export interface KeySpec {
  name: string;
  sha256: string;
  /** Model id globs this key may call (default: all). */
  models?: string[];
  /** Provider name globs this key may reach, by model call or pass-through route (default: all). */
  providers?: string[];
  rpm?: number;
  tpm?: number;
  budget?: { usd: number; period: 'minute' | 'hour' | 'day' | 'month' | 'total' };
  /** The response cache for this key's calls (over the model's and the top-level block). */
  cache?: CacheOverride;
}

/** An operator key declared in gateway.yaml (hash only). */
export interface AdminKeySpec { name: string; sha256: string }

/** `ledger:` section: where billed requests are recorded and managed keys are kept. */
export interface LedgerConfig {
  /** `postgres://...`; unset = no ledger, no admin API (501). */
  url?: string;
  /** Append-only JSON-lines file that holds rows while the database is unreachable. */
  journal: string;
  /** Rows per INSERT. */
  batch_size: number;
  /** Longest wait before queued rows are written. */
  flush_interval_ms: number;
  /** Rows held in memory before they spill to the journal. */
  queue_limit: number;
  /** How long a managed key stays cached when no change notification arrives. */
  key_cache_ttl_ms: number;
}

export interface GatewayConfig {
  /** Folder of route files relative to gateway.yaml (default `routes`). */
  routes?: string;
  server: { host: string; port: number; public_url?: string; /** Legacy first-byte/idle deadline (ms); `routing.timeouts` is the full set. */ upstream_timeout_ms?: number; log_level: string; trust_proxy: boolean; shutdown_grace_s: number; trusted_proxies?: string[] | number };
  auth: {
    keys_env: string;
    keys: KeySpec[];
    /** Keys of operators (admin API, /metrics): `{name, sha256}`, never the key itself. */
    admin_keys: AdminKeySpec[];
    /** Environment variable holding comma-separated plain admin keys. */
    admin_keys_env: string;
  };
  /** Usage ledger and managed keys in PostgreSQL; off (no `url`) by default. */
  ledger: LedgerConfig;
  limits: {
    body_bytes: number;
    anonymous_discovery: { requests: number; window_seconds: number };
    fetch?: { allow_private: boolean; max_bytes: number; timeout_ms: number };
  };
  store: {
    url: string;
    on_error: 'open' | 'closed';
    /** Instances sharing budgets during an outage (default: the live heartbeats). */
    instances?: number;
    tls?: { ca_file?: string };
    /** Stored Responses: seconds kept, largest record, memory total (defaults in fleet/open-stores.ts). */
    responses?: { ttl_s?: number; max_bytes?: number; max_total_bytes?: number };
  };
  files: {
    dir: string;
    default_provider: string;
    max_bytes: number;
    /** Where uploads are streamed while their request runs (default `<dir>/.incoming`). */
    tmp_dir?: string;
    /** Where bytes live: `local` (`dir`, one instance; default) or `s3` (`s3`, any number of instances). */
    store?: 'local' | 's3';
    s3?: { bucket: string; endpoint?: string; region?: string; force_path_style?: boolean; prefix?: string; access_key_env?: string; secret_key_env?: string };
    /** Retention: files older than this many days are deleted (bytes and record). */
    ttl_days?: number;
    /** How often each instance runs the retention sweep (default 600). */
    sweep_interval_seconds?: number;
  };
  realtime: { secret?: string; url_ttl_seconds: number };
  observability: ObservabilitySpec;
  /** Defaults of every upstream call (retries, deadlines, breaker). */
  routing?: RoutingSpec;
  /** The response cache (off by default). */
  cache: CacheConfig;
  providers: Record<string, ProviderSpec>;
  models: ModelSpec[];
}

/** An operator (admin) key declared in gateway.yaml (hash only, never the key). */
export interface AdminKeySpec {
  name: string;
  sha256: string;
}

/** Metrics and tracing settings (`observability:` in gateway.yaml). */
export interface ObservabilitySpec {
  metrics: {
    /** Serve GET /metrics without a key (else an admin key is needed). */
    public: boolean;
    /** Label request metrics with the calling key's name (off for fleets with many keys). */
    key_label: boolean;
  };
  tracing: {
    /** OTLP/HTTP endpoint (base URL or `.../v1/traces`); unset and no OTEL_EXPORTER_OTLP_ENDPOINT = tracing off. */
    otlp_endpoint?: string;
    /** `service.name` of the spans (default `model-gateway`, or OTEL_SERVICE_NAME). */
    service_name?: string;
  };
}
