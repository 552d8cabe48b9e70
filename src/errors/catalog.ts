/**
 * The one catalog of the error codes the gateway answers: every `error.code` with its HTTP
 * status, its `error.type` and what it means. GatewayError's `code` is typed from this list, so
 * a code that is not here does not compile; the README's "Error codes" table is rendered from it
 * (src/errors/readme-table.ts) and a test compares the two both ways.
 *
 * A code may appear with more than one status when the same fact is reported by two routes
 * (`model_not_found`: 400 on a call, 404 on a model card).
 * `messages` is how the messages surface (SPEC 2.6, Anthropic's SDK) sees the error when that
 * differs: its error types are Anthropic's set, and overload is 529 there (503 elsewhere).
 */

/** The `error.type` families the gateway answers in the default envelope. */
export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'rate_limit_error'
  | 'api_error'
  | 'upstream_error'
  | 'overloaded_error'
  | 'timeout_error';

/** One row of the catalog. */
export interface CatalogEntry {
  readonly code: string;
  readonly status: number;
  readonly type: ErrorType;
  /** One line: when the gateway answers this. */
  readonly meaning: string;
  /** Status and type on the messages surface, when they differ from the default ones. */
  readonly messages?: { readonly status?: number; readonly type?: string };
  /**
   * True for the one row that stands for a provider's own 4xx passed on: `error.code` is then
   * the provider's code when it sent one, else `upstream_<status>`.
   */
  readonly passthrough?: true;
}

const invalid = 'invalid_request_error' as const;
// Anthropic's SDK knows no `upstream_error`: upstream 5xx read as `api_error` there.
const apiErrorOnMessages = { type: 'api_error' } as const;

/** Every code the gateway can answer, in README order (by status). */
export const ERROR_CATALOG = [
  { code: 'malformed_json', status: 400, type: invalid, meaning: 'the body is not valid JSON' },
  { code: 'invalid_event', status: 400, type: invalid, meaning: 'a WebSocket-mode message of /v1/responses that is not a JSON text object' },
  { code: 'unknown_event_type', status: 400, type: invalid, meaning: "a WebSocket-mode client event of /v1/responses other than `response.create`" },
  { code: 'nesting_too_deep', status: 400, type: invalid, meaning: 'the JSON body nests deeper than the gateway reads (256 levels)' },
  { code: 'validation_failed', status: 400, type: invalid, meaning: "schema violation; the message names field and rule, `details.errors[]` = `{field, rule, message}`" },
  { code: 'invalid_request', status: 400, type: invalid, meaning: 'a request the gateway cannot serve as sent (the message says why)' },
  { code: 'model_not_found', status: 400, type: invalid, meaning: 'unknown model id in a call' },
  { code: 'unsupported_operation', status: 400, type: invalid, meaning: 'the model does not serve this endpoint' },
  { code: 'provider_not_configured', status: 400, type: invalid, meaning: "the model's provider has no key or base URL; names the variable" },
  { code: 'unknown_provider', status: 400, type: invalid, meaning: 'a file upload names a provider that is not configured' },
  { code: 'file_not_found', status: 400, type: invalid, meaning: 'a `file_id` in the request names no uploaded file' },
  { code: 'invalid_cache_ttl', status: 400, type: invalid, meaning: '`x-gateway-cache-ttl` that is not a whole number of seconds' },
  { code: 'invalid_file_id', status: 400, type: invalid, meaning: 'a file id field that is not a non-empty string' },
  { code: 'invalid_url', status: 400, type: invalid, meaning: 'a media URL that is not an absolute http(s) or data: URL' },
  { code: 'url_not_allowed', status: 400, type: invalid, meaning: 'a media URL pointing at a private or loopback address' },
  { code: 'fetch_failed', status: 400, type: invalid, meaning: 'a media URL fetched on the client\'s behalf did not answer 2xx' },
  { code: 'fetch_too_large', status: 400, type: invalid, meaning: 'a fetched media URL is over the fetch size limit' },
  { code: 'fetch_timeout', status: 400, type: invalid, meaning: 'a fetched media URL did not answer in time' },
  { code: 'unsupported_parameter', status: 400, type: invalid, meaning: 'a parameter the target model or format cannot express (e.g. `n > 1` to Anthropic)' },
  { code: 'unsupported_value', status: 400, type: invalid, meaning: 'a value the target model or format does not accept' },
  { code: 'unsupported_content', status: 400, type: invalid, meaning: 'a content part the target format cannot carry' },
  { code: 'unsupported_tool', status: 400, type: invalid, meaning: 'a tool type the target format cannot carry' },
  { code: 'unsupported_role', status: 400, type: invalid, meaning: 'a message role the target format cannot carry' },
  { code: 'unsupported_input_item', status: 400, type: invalid, meaning: 'a Responses `input` item type the gateway cannot translate' },
  { code: 'conflicting_fields', status: 400, type: invalid, meaning: 'two fields that cannot be sent together' },
  { code: 'invalid_parameter', status: 400, type: invalid, meaning: 'a parameter value out of the range the target accepts' },
  { code: 'missing_field', status: 400, type: invalid, meaning: 'a field the operation needs is absent' },
  { code: 'invalid_field', status: 400, type: invalid, meaning: 'a field of the wrong shape for the operation' },
  { code: 'invalid_input', status: 400, type: invalid, meaning: '`input` of a shape the operation does not take' },
  { code: 'empty_input', status: 400, type: invalid, meaning: '`input` is empty' },
  { code: 'too_many_inputs', status: 400, type: invalid, meaning: 'more inputs than the model takes in one call' },
  { code: 'invalid_content', status: 400, type: invalid, meaning: 'a message content of the wrong shape' },
  { code: 'invalid_role', status: 400, type: invalid, meaning: 'a message role that is not known' },
  { code: 'invalid_id', status: 400, type: invalid, meaning: 'a job or video generation id that is not a non-empty string' },
  { code: 'invalid_tool', status: 400, type: invalid, meaning: 'a tool definition of the wrong shape' },
  { code: 'invalid_tool_call', status: 400, type: invalid, meaning: 'an assistant tool call of the wrong shape' },
  { code: 'invalid_tool_result', status: 400, type: invalid, meaning: 'a tool result of the wrong shape' },
  { code: 'unknown_tool', status: 400, type: invalid, meaning: '`tool_choice` names a tool that is not offered' },
  { code: 'unknown_tool_call', status: 400, type: invalid, meaning: 'a tool result answers a call that is not in the conversation' },
  { code: 'invalid_image', status: 400, type: invalid, meaning: 'an image that cannot be read' },
  { code: 'missing_image', status: 400, type: invalid, meaning: 'an image operation without an image' },
  { code: 'too_many_images', status: 400, type: invalid, meaning: 'more images than the operation takes' },
  { code: 'invalid_size', status: 400, type: invalid, meaning: 'an image size the model does not offer' },
  { code: 'invalid_aspect_ratio', status: 400, type: invalid, meaning: 'a video aspect ratio the model does not offer' },
  { code: 'invalid_resolution', status: 400, type: invalid, meaning: 'a video resolution the model does not offer' },
  { code: 'invalid_duration', status: 400, type: invalid, meaning: 'a video duration the model does not offer' },
  { code: 'invalid_dimensions', status: 400, type: invalid, meaning: 'embedding `dimensions` the model does not offer' },
  { code: 'invalid_encoding_format', status: 400, type: invalid, meaning: 'an embedding `encoding_format` the model does not offer' },
  { code: 'invalid_output_dtype', status: 400, type: invalid, meaning: 'an embedding `output_dtype` the model lacks' },
  { code: 'invalid_query', status: 400, type: invalid, meaning: 'a rerank query of the wrong shape' },
  { code: 'invalid_documents', status: 400, type: invalid, meaning: 'rerank documents of the wrong shape' },
  { code: 'invalid_audio', status: 400, type: invalid, meaning: 'audio that cannot be read (bad base64, unknown format)' },
  { code: 'missing_audio', status: 400, type: invalid, meaning: 'a transcription without audio' },
  { code: 'missing_prompt', status: 400, type: invalid, meaning: 'a generation without a prompt' },
  { code: 'invalid_base64', status: 400, type: invalid, meaning: 'base64 content that is not valid base64' },
  { code: 'invalid_media', status: 400, type: invalid, meaning: 'a media field that is not the URL, `{url}`, `{file_id}` or base64 the field takes' },
  { code: 'invalid_max_budget', status: 400, type: invalid, meaning: '`max_budget_usd` is not a positive number' },
  { code: 'invalid_max_duration', status: 400, type: invalid, meaning: '`max_duration_seconds` missing or out of range' },
  { code: 'budget_exceeded', status: 400, type: invalid, meaning: 'the worst case of the call exceeds `max_budget_usd` even with the output limit lowered; `details` has `estimate_usd`, `max_budget_usd` and the units' },
  { code: 'invalid_multipart', status: 400, type: invalid, meaning: 'a multipart/form-data body that is malformed, or a file sent in a part other than `file`' },
  { code: 'too_many_files', status: 400, type: invalid, meaning: 'more than one file part in an upload' },
  { code: 'empty_file', status: 400, type: invalid, meaning: 'an upload whose file part has no bytes' },
  { code: 'invalid_cursor', status: 400, type: invalid, meaning: '`after` names no file of the calling key (`GET /v1/files`)' },
  { code: 'previous_response_not_found', status: 400, type: invalid, meaning: '`previous_response_id` names no stored response of the calling key (unknown, expired, or not stored)' },
  { code: 'item_not_found', status: 400, type: invalid, meaning: 'an `item_reference` names no stored item of the calling key' },
  { code: 'upstream_<status>', status: 400, type: invalid, passthrough: true, meaning: "a provider's 400/404/409/413/422 about the request, status kept; `error.code` is the provider's own code when it sent one" },
  { code: 'missing_api_key', status: 401, type: 'authentication_error', meaning: 'no gateway key (checked before the body is read)' },
  { code: 'invalid_api_key', status: 401, type: 'authentication_error', meaning: 'a gateway key that is not configured (never a provider\'s refusal: see `upstream_auth_error`)' },
  { code: 'invalid_session_token', status: 401, type: 'authentication_error', meaning: 'a realtime session URL that is invalid or expired' },
  { code: 'key_revoked', status: 401, type: 'authentication_error', meaning: 'a managed key revoked through the admin API' },
  { code: 'key_expired', status: 401, type: 'authentication_error', meaning: "a managed key past its `expires_at`" },
  { code: 'budget_exhausted', status: 402, type: 'billing_error', meaning: "the key's spend budget for the period is used up (`Retry-After` until the period resets, except `total`)" },
  { code: 'forbidden', status: 403, type: 'permission_error', meaning: 'the key may not do this' },
  { code: 'model_not_allowed', status: 403, type: 'permission_error', meaning: "the key's `models` globs do not allow this model" },
  { code: 'provider_not_allowed', status: 403, type: 'permission_error', meaning: "the key's `providers` globs do not allow this model's provider or pass-through route" },
  { code: 'passthrough_not_billable', status: 403, type: 'permission_error', meaning: 'a key with a budget on a pass-through route that declares no `charge_usd`: its spend could not be counted' },
  { code: 'passthrough_path_not_allowed', status: 403, type: 'permission_error', meaning: "a pass-through path outside the route's `allow` list (checked after normalising `..`, `%2e%2e` and duplicate slashes)" },
  { code: 'admin_key_required', status: 403, type: 'permission_error', meaning: 'a client key on an operator route (`/admin/*`, `/metrics`): these need an `auth.admin_keys` key' },
  { code: 'route_not_found', status: 404, type: 'not_found_error', meaning: 'unknown path' },
  { code: 'model_not_found', status: 404, type: 'not_found_error', meaning: 'unknown model card (`GET /v1/models/{id}`)' },
  { code: 'job_not_found', status: 404, type: 'not_found_error', meaning: 'unknown job id' },
  { code: 'file_not_found', status: 404, type: 'not_found_error', meaning: 'unknown, expired or another key\'s file on the file routes' },
  { code: 'response_not_found', status: 404, type: 'not_found_error', meaning: 'unknown stored response (`GET /v1/responses/{id}`), or another key\'s' },
  { code: 'key_not_found', status: 404, type: 'not_found_error', meaning: 'unknown managed key id (admin API)' },
  { code: 'team_not_found', status: 404, type: 'not_found_error', meaning: 'unknown team id (admin API)' },
  { code: 'not_found', status: 404, type: 'not_found_error', meaning: 'an unknown resource (e.g. a realtime path)' },
  { code: 'method_not_allowed', status: 405, type: invalid, meaning: 'known path, other method (`Allow` header)' },
  { code: 'key_revoked', status: 409, type: invalid, meaning: 'an admin change to a revoked key (rotate, update): create a new key instead' },
  { code: 'response_already_in_flight', status: 409, type: invalid, meaning: "a `response.create` on a /v1/responses WebSocket whose previous response has not finished" },
  { code: 'team_exists', status: 409, type: invalid, meaning: 'an admin team create with a name already taken' },
  { code: 'team_has_keys', status: 409, type: invalid, meaning: 'deleting a team that still has active keys' },
  { code: 'request_too_large', status: 413, type: invalid, meaning: 'body over `limits.body_bytes`, or over a pass-through route\'s `proxy.max_signed_body_bytes` (a provider that signs bodies: `auth: aws`)', messages: { type: 'request_too_large' } },
  { code: 'unsupported_media_type', status: 415, type: invalid, meaning: 'a content type the route does not accept (JSON routes take `application/json`)' },
  { code: 'rate_limit_exceeded', status: 429, type: 'rate_limit_error', meaning: "anonymous discovery limit, a key's `rpm` / `tpm` (`details.limit`), or a provider's 429; integer `Retry-After` >= 1" },
  { code: 'internal_error', status: 500, type: 'api_error', meaning: 'a gateway bug; logged, never with a stack trace in the answer' },
  { code: 'ledger_not_configured', status: 501, type: 'api_error', meaning: 'the admin API or `/v1/usage` without `ledger.url` (names what to set)' },
  { code: 'upstream_error', status: 502, type: 'upstream_error', meaning: 'the provider answered 5xx (or an in-band error of no known kind)', messages: apiErrorOnMessages },
  { code: 'upstream_unreachable', status: 502, type: 'upstream_error', meaning: 'the provider could not be reached (connect refused, DNS, reset before the answer)', messages: apiErrorOnMessages },
  { code: 'upstream_auth_error', status: 502, type: 'upstream_error', meaning: "the provider refused the gateway's own provider credentials (its 401/403), or cloud credentials could not be obtained or refreshed (names the provider and the credential source, never the secret)", messages: apiErrorOnMessages },
  { code: 'invalid_upstream_response', status: 502, type: 'upstream_error', meaning: 'a provider answer the gateway cannot read: not JSON, a 200 stream that is not `text/event-stream`, a malformed SSE frame', messages: apiErrorOnMessages },
  { code: 'upstream_stream_truncated', status: 502, type: 'upstream_error', meaning: "an answer cut short: a stream that ended before its format's terminal event, a connection reset mid-answer", messages: apiErrorOnMessages },
  { code: 'store_unavailable', status: 503, type: 'api_error', meaning: 'Redis unreachable with `store.on_error: closed` (`Retry-After: 1`)' },
  { code: 'file_bytes_unavailable', status: 502, type: 'api_error', meaning: "a file's record is in the shared store but its bytes are not on this instance (`files.store: local` without one shared `files.dir`): an operator problem, logged with the file id and the directory searched" },
  { code: 'key_store_unavailable', status: 503, type: 'api_error', meaning: 'managed keys cannot be checked (PostgreSQL unreachable); `Retry-After: 1`' },
  { code: 'ledger_unavailable', status: 503, type: 'api_error', meaning: 'the ledger database is unreachable (admin API, `/v1/usage`)' },
  { code: 'ledger_not_migrated', status: 503, type: 'api_error', meaning: 'the ledger database has no gateway tables yet: run `gateway migrate`' },
  { code: 'starting', status: 503, type: 'api_error', meaning: 'the gateway is starting (store not connected yet); `/readyz` answers 503 too' },
  { code: 'shutting_down', status: 503, type: 'api_error', meaning: 'the gateway is draining (SIGTERM/SIGINT): `Retry-After` and `Connection: close`; retry on another instance' },
  { code: 'upstream_overloaded', status: 503, type: 'overloaded_error', meaning: "the provider is overloaded (Anthropic `overloaded_error`, a 503 or 529); 529 `overloaded_error` on /v1/messages; `Retry-After` kept", messages: { status: 529 } },
  { code: 'upstream_circuit_open', status: 503, type: 'api_error', meaning: "only with `routing.breaker.when_all_open: refuse`: every upstream of the model (and of its fallbacks) has its circuit breaker open; `Retry-After` = seconds until the first cooldown ends" },
  { code: 'upstream_timeout', status: 504, type: 'timeout_error', meaning: 'the provider did not answer in time' },
] as const satisfies readonly CatalogEntry[];

/** A code of the catalog (the passthrough row excluded: see ProviderCode). */
export type ErrorCode = Exclude<(typeof ERROR_CATALOG)[number]['code'], 'upstream_<status>'>;

/** The codes the catalog lists at one status (builders of one status take only these). */
export type CodeAt<S extends number> = Exclude<Extract<(typeof ERROR_CATALOG)[number], { status: S }>['code'], 'upstream_<status>'>;

/**
 * A provider's own error code passed on unchanged with its 4xx (catalog row `upstream_<status>`).
 * Only src/errors/upstream-failure.ts makes one.
 */
export type ProviderCode = string & { readonly __providerCode: true };

// Indexed once: every rendered error (and every gatewayError()) looks its row up. A code has
// one row, or a few (one per status).
const ROWS_BY_CODE = new Map<string, CatalogEntry[]>();
for (const e of ERROR_CATALOG as readonly CatalogEntry[]) {
  const rows = ROWS_BY_CODE.get(e.code);
  if (rows) rows.push(e);
  else ROWS_BY_CODE.set(e.code, [e]);
}

/** The catalog row of a code at a status (the first row of the code when status is omitted or has none). */
export function findCatalogEntry(code: string, status?: number): CatalogEntry | undefined {
  const rows = ROWS_BY_CODE.get(code);
  if (!rows) return undefined;
  return (status === undefined ? undefined : rows.find((e) => e.status === status)) ?? rows[0];
}
