import { findCatalogEntry, type CodeAt, type ErrorCode, type ProviderCode } from './catalog.js';

export type { ErrorCode, ProviderCode } from './catalog.js';

/**
 * The one error class of the gateway. Every failure that reaches a client is a GatewayError;
 * envelopes (src/server/envelope.ts) are the only place that turns it into a response body.
 * `type` and `code` are stable, documented values: `code` must be a row of the catalog
 * (src/errors/catalog.ts, README "Error codes"), which the type enforces.
 */
export class GatewayError extends Error {
  constructor(
    /** HTTP status sent to the client. */
    readonly status: number,
    /** Stable error family, e.g. `invalid_request_error`. */
    readonly type: string,
    /** Stable machine-readable code from the catalog, e.g. `validation_failed`. */
    readonly code: ErrorCode | ProviderCode | null,
    message: string,
    /** Structured findings (validation errors, estimates ...). Never secrets. */
    readonly details?: Record<string, unknown>,
    /** Extra response headers, e.g. Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'GatewayError';
  }
}

/**
 * A GatewayError whose status and type come from the catalog row of `code` (the row at
 * `status` when a code has several).
 */
export function gatewayError(code: ErrorCode, message: string, options: { status?: number; details?: Record<string, unknown>; headers?: Record<string, string> } = {}): GatewayError {
  const entry = findCatalogEntry(code, options.status);
  if (!entry) throw new Error(`error code '${code}' is not in the catalog`);
  return new GatewayError(entry.status, entry.type, code, message, options.details, options.headers);
}

/** Builders for the documented error set, so codes are spelled in one place. */
export const errors = {
  malformedJson: (why: string) =>
    new GatewayError(400, 'invalid_request_error', 'malformed_json', `Request body is not valid JSON: ${why}`),
  validation: (message: string, findings: unknown[]) =>
    new GatewayError(400, 'invalid_request_error', 'validation_failed', message, { errors: findings }),
  invalidRequest: (message: string, code: CodeAt<400> = 'invalid_request', details?: Record<string, unknown>) =>
    new GatewayError(400, 'invalid_request_error', code, message, details),
  unknownModel: (model: string) =>
    new GatewayError(400, 'invalid_request_error', 'model_not_found', `Unknown model '${model}'. GET /v1/models lists the available models.`, { model }),
  unsupportedOperation: (model: string, operation: string) =>
    new GatewayError(400, 'invalid_request_error', 'unsupported_operation', `Model '${model}' does not support '${operation}'. Check supported_endpoints in GET /v1/models/${model}.`, { model, operation }),
  providerNotConfigured: (provider: string, missing: string) =>
    new GatewayError(400, 'invalid_request_error', 'provider_not_configured', `Provider '${provider}' is not configured: set ${missing}.`, { provider, missing }),
  unsupportedContentEncoding: (got: string) =>
    new GatewayError(415, 'invalid_request_error', 'unsupported_media_type', `Content-Encoding '${got}' is not accepted here; send the body as it is or with gzip, deflate or br.`),
  unsupportedMediaType: (got: string, accepted: readonly string[]) =>
    new GatewayError(415, 'invalid_request_error', 'unsupported_media_type', `Content-Type '${got}' is not accepted here; send one of: ${accepted.join(', ')}.`),
  missingKey: () =>
    new GatewayError(401, 'authentication_error', 'missing_api_key', 'No API key provided. Send "Authorization: Bearer <key>" or "x-api-key: <key>".'),
  invalidKey: () =>
    new GatewayError(401, 'authentication_error', 'invalid_api_key', 'Invalid API key.'),
  forbidden: (message: string, code: CodeAt<403> = 'forbidden') =>
    new GatewayError(403, 'permission_error', code, message),
  routeNotFound: (method: string, path: string) =>
    new GatewayError(404, 'not_found_error', 'route_not_found', `No route for ${method} ${path}.`),
  modelNotFound: (model: string) =>
    new GatewayError(404, 'not_found_error', 'model_not_found', `Model '${model}' does not exist.`, { model }),
  notFound: (message: string, code: CodeAt<404> = 'not_found') => new GatewayError(404, 'not_found_error', code, message),
  methodNotAllowed: (method: string, path: string, allowed: string) =>
    new GatewayError(405, 'invalid_request_error', 'method_not_allowed', `${method} is not allowed on ${path}; use ${allowed}.`, undefined, { Allow: allowed }),
  bodyTooLarge: (limit: number) =>
    new GatewayError(413, 'invalid_request_error', 'request_too_large', `Request body exceeds the limit of ${limit} bytes.`, { limit_bytes: limit }),
  rateLimited: (retryAfterSeconds: number, message = 'Rate limit exceeded.') =>
    new GatewayError(429, 'rate_limit_error', 'rate_limit_exceeded', message, { retry_after_seconds: retryAfterSeconds }, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) }),
  /** Cloud credentials (tokens, signing keys) could not be obtained: a gateway configuration or identity problem. */
  upstreamCredentials: (provider: string, source: string, reason: string) =>
    new GatewayError(502, 'upstream_error', 'upstream_auth_error', `Provider '${provider}' could not obtain credentials from ${source}: ${reason} This is a gateway configuration problem, not your API key.`, { provider, credential_source: source }),
  upstreamUnreachable: (provider: string) =>
    new GatewayError(502, 'upstream_error', 'upstream_unreachable', `Provider '${provider}' could not be reached.`, { provider }),
  upstreamTimeout: (provider: string, ms: number) =>
    new GatewayError(504, 'timeout_error', 'upstream_timeout', `Provider '${provider}' did not answer within ${ms} ms.`, { provider, timeout_ms: ms }),
  invalidUpstreamResponse: (provider: string, what: string) =>
    gatewayError('invalid_upstream_response', `Provider '${provider}' sent ${what}.`, { details: { provider } }),
  streamTruncated: (provider: string, why = 'ended the stream before its end event') =>
    gatewayError('upstream_stream_truncated', `Provider '${provider}' ${why}; the answer is incomplete.`, { details: { provider } }),
  nestingTooDeep: (limit: number) =>
    gatewayError('nesting_too_deep', `Request body nests deeper than ${limit} levels.`, { details: { limit } }),
  internal: () => new GatewayError(500, 'api_error', 'internal_error', 'Internal gateway error.'),
};

/** Narrowing helper for catch blocks. */
export function isGatewayError(e: unknown): e is GatewayError {
  return e instanceof GatewayError;
}
