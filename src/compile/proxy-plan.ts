import type { GatewayConfig, RouteSpec } from '../config/types.js';
import { deploymentAuthorizer } from '../providers/auth/deployment-authorizer.js';
import { envPrefixOf } from '../providers/access.js';
import { resolvePolicy } from '../routing/policy.js';
import { compileModelGlobs } from './keys.js';
import { dialects } from './registry.js';
import type { ProxyPlan, ResolvedProvider } from './runtime.js';

/** Why a pass-through route cannot be served (compile reports it at the route file). */
export class ProxyPlanError extends Error {}

/** `proxy.max_signed_body_bytes` when the route names none: 10 MiB. */
const DEFAULT_MAX_SIGNED_BODY_BYTES = 10 * 1024 * 1024;

/** A stand-in key: the type's headers that carry it are credentials, the others defaults. */
const PROBE_KEY = '\u0000gateway-probe-key\u0000';

/**
 * Compiles the `proxy:` block of a route; throws ProxyPlanError when it cannot be served.
 * Credentials are the provider's own (src/providers/auth): the authorizer of its first
 * deployment, whatever its auth type, else its key in the provider type's key headers.
 */
export function compileProxyPlan(spec: RouteSpec, providers: ReadonlyMap<string, ResolvedProvider>, config: GatewayConfig): ProxyPlan {
  const block = spec.proxy!;
  const provider = providers.get(block.provider);
  if (!provider) return unservedPlan(spec, `providers.${block.provider}`, config);
  const dialect = dialects.get(provider.spec.type);
  const options = provider.spec.options ?? {};
  // The type's key headers (its dialect's; `Authorization: Bearer` for a type without one). Those
  // carrying the key are credentials; the others (Anthropic's anthropic-version and beta list)
  // go with the provider's headers, which a client's own values override (a client trying a new
  // beta sends its own anthropic-beta).
  const typeHeaders = (key: string): Record<string, string> => lowercaseKeys(dialect ? dialect.authHeaders(key, options) : { authorization: `Bearer ${key}` });
  const keyHeaders = (key: string): Record<string, string> => Object.fromEntries(Object.entries(typeHeaders(key)).filter(([, v]) => v.includes(key)));
  const defaults = Object.fromEntries(Object.entries(typeHeaders(PROBE_KEY)).filter(([, v]) => v !== '' && !v.includes(PROBE_KEY)));
  const authorizer = deploymentAuthorizer({ apiKey: provider.apiKey, authorizer: provider.access?.authorizer }, keyHeaders);
  const base = block.upstream_base || provider.baseUrl;
  let url: URL | undefined;
  try {
    url = base ? new URL(base) : undefined;
  } catch {
    throw new ProxyPlanError(`proxy.upstream_base: '${base}' is not a URL`);
  }
  const charge = block.charge_usd === undefined ? undefined : Number(block.charge_usd);
  const prefix = envPrefixOf(provider.name);
  return Object.freeze({
    provider: provider.name,
    stripPrefix: (block.strip_prefix ?? '').replace(/\/+$/, ''),
    origin: url?.origin ?? '',
    // The default base is the provider URL's origin only: clients send the provider's own paths.
    basePath: block.upstream_base && url ? url.pathname.replace(/\/+$/, '') : '',
    allow: block.allow ? Object.freeze(compileModelGlobs(block.allow)) : undefined,
    chargeUsd: charge,
    timeouts: resolvePolicy([config.routing, provider.spec.routing], provider.spec.timeout_ms ?? config.server.upstream_timeout_ms).timeouts,
    authorizer,
    maxSignedBodyBytes: block.max_signed_body_bytes ?? DEFAULT_MAX_SIGNED_BODY_BYTES,
    headers: Object.freeze({ ...defaults, ...lowercaseKeys(provider.spec.headers ?? {}) }),
    missing: provider.missing ?? (!url ? `${prefix}_BASE_URL` : authorizer ? undefined : `${prefix}_API_KEY`),
  });
}

/** The plan of a route whose provider is not declared: every request answers 400 provider_not_configured. */
function unservedPlan(spec: RouteSpec, missing: string, config: GatewayConfig): ProxyPlan {
  return Object.freeze({
    provider: spec.proxy!.provider,
    stripPrefix: '',
    origin: '',
    basePath: '',
    timeouts: resolvePolicy([config.routing]).timeouts,
    maxSignedBodyBytes: 0,
    headers: {},
    missing,
  });
}

function lowercaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
