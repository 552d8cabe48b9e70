import { createHash } from 'node:crypto';
import { GatewayError, errors, isGatewayError } from '../../errors/gateway-error.js';
import { redactSecrets } from '../../errors/redact.js';
import type { AttemptTrace } from '../../upstream/call-upstream.js';
import type { CachedCredential } from './cached-credential.js';
import type { OutgoingRequest, RequestAuthorizer } from './types.js';

/** Headers in which dialects send a provider key; an authorizer with its own credential replaces them. */
const KEY_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key', 'api-key'] as const;

/**
 * Removes the key headers a dialect wrote for this deployment: empty ones (no key configured)
 * and those carrying `key`. Other headers (`anthropic-version`, the operator's own) stay.
 */
export function dropKeyHeaders(headers: Record<string, string>, key?: string): void {
  for (const name of KEY_HEADERS) {
    const v = headers[name];
    if (v === undefined) continue;
    if (v === '' || v === 'Bearer ' || v === 'Bearer' || (key !== undefined && key !== '' && v.includes(key))) delete headers[name];
  }
}

/** A static key sent as `<header>: <prefix><key>` in place of the dialect's own key header. */
export function staticKeyAuthorizer(source: string, key: string, header: string, prefix = ''): RequestAuthorizer {
  return staticHeadersAuthorizer(source, key, { [header]: `${prefix}${key}` });
}

/**
 * A static key sent in `headers` (each value carries it: `authorization: Bearer <k>`,
 * `x-api-key: <k>`), in place of the key headers a dialect wrote (empty ones, or ones carrying
 * this key).
 */
export function staticHeadersAuthorizer(source: string, key: string, headers: Readonly<Record<string, string>>): RequestAuthorizer {
  const set = Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value] as const);
  return {
    source,
    authorize(req) {
      dropKeyHeaders(req.headers, key);
      for (const [name, value] of set) req.headers[name] = value;
    },
  };
}

/**
 * Sends a cached token as `Authorization: Bearer <token>`: synchronously while the token is
 * fresh (the common case costs no promise), else after the one fetch in flight.
 */
export function bearerAuthorizer(provider: string, source: string, token: CachedCredential<string>): RequestAuthorizer {
  const put = (req: OutgoingRequest, value: string): void => {
    dropKeyHeaders(req.headers);
    req.headers.authorization = `Bearer ${value}`;
  };
  return {
    source,
    authorize(req, trace) {
      const got = credentialOf(token, provider, source, trace);
      if (typeof got === 'string') return put(req, got);
      return got.then((value) => put(req, value));
    },
    warm: () => token.warm(),
  };
}

/**
 * A cached credential's value (synchronously while it is fresh, else the fetch in flight); a
 * credential that cannot be had throws or rejects with credentialFailure's error.
 */
export function credentialOf<T>(credential: CachedCredential<T>, provider: string, source: string, trace?: AttemptTrace): T | Promise<T> {
  let got: T | Promise<T>;
  try {
    got = credential.get();
  } catch (e) {
    throw credentialFailure(provider, source, e, trace);
  }
  if (got instanceof Promise) return got.catch((e: unknown) => { throw credentialFailure(provider, source, e, trace); });
  return got;
}

/**
 * The error of a credential that could not be obtained: 502 `upstream_auth_error` naming the
 * provider and the source, with the library's reason (redacted, shortened; never the secret).
 * The attempt is recorded as a 502 in `trace` so the routing loop's breaker counts it like an
 * upstream failure.
 */
function credentialFailure(provider: string, source: string, e: unknown, trace?: AttemptTrace): GatewayError {
  if (trace) {
    trace.calls++;
    if (trace.total) trace.total.calls++;
    trace.failure = { kind: 'status', status: 502, headers: {} };
  }
  if (isGatewayError(e) && e.code === 'upstream_auth_error') return e;
  return errors.upstreamCredentials(provider, source, reasonOf(e));
}

function reasonOf(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  const oneLine = redactSecrets(raw).replace(/\s+/g, ' ').trim();
  const short = oneLine.length > 300 ? `${oneLine.slice(0, 297)}...` : oneLine;
  return /[.!?]$/.test(short) ? short : `${short}.`;
}

/** A short fingerprint of secret values, so a cache key changes when a secret does (the secret never appears). */
export function fingerprint(...values: Array<string | undefined>): string {
  return createHash('sha256').update(values.map((v) => v ?? '').join('\u0000')).digest('hex').slice(0, 16);
}
