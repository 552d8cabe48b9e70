import type { GatewayConfig, RouteSpec } from '../config/types.js';
import { credentialsFor, authTypeOf } from '../providers/request-credentials.js';
import { resolvePolicy } from '../routing/policy.js';
import { compileModelGlobs } from './keys.js';
import { dialects } from './registry.js';
import type { ProxyPlan, ResolvedProvider } from './runtime.js';

/** Why a pass-through route cannot be served (compile reports it at the route file). */
export class ProxyPlanError extends Error {}

/** Compiles the `proxy:` block of a route; throws ProxyPlanError when it cannot be served. */
export function compileProxyPlan(spec: RouteSpec, providers: ReadonlyMap<string, ResolvedProvider>, config: GatewayConfig): ProxyPlan {
  const block = spec.proxy!;
  const provider = providers.get(block.provider);
  if (!provider) return unservedPlan(spec, `providers.${block.provider}`, config);
  const dialect = dialects.get(provider.spec.type);
  // A type's key headers may carry defaults beside the key (Anthropic's anthropic-version and
  // beta list): those go with the provider's headers, which a client's own values override (a
  // client trying a new beta sends its own anthropic-beta); only the key itself is forced.
  const typeHeaders = dialect ? lowercaseKeys(dialect.authHeaders(provider.apiKey ?? '', provider.spec.options ?? {})) : {};
  const isSecret = (value: string): boolean => Boolean(provider.apiKey) && value.includes(provider.apiKey!);
  const credentials = credentialsFor({
    name: provider.name,
    spec: provider.spec,
    apiKey: provider.apiKey,
    keyHeaders: dialect ? (key) => Object.fromEntries(Object.entries(lowercaseKeys(dialect.authHeaders(key, provider.spec.options ?? {}))).filter(([, v]) => v.includes(key))) : undefined,
  });
  const defaults = Object.fromEntries(Object.entries(typeHeaders).filter(([, v]) => v !== '' && !isSecret(v) && !/^(Bearer )?$/.test(v)));
  if (!credentials) {
    throw new ProxyPlanError(`provider '${provider.name}' authenticates with auth type '${authTypeOf(provider.spec)}', which pass-through routes cannot authorize yet`);
  }
  const base = block.upstream_base || provider.baseUrl;
  let url: URL | undefined;
  try {
    url = base ? new URL(base) : undefined;
  } catch {
    throw new ProxyPlanError(`proxy.upstream_base: '${base}' is not a URL`);
  }
  const charge = block.charge_usd === undefined ? undefined : Number(block.charge_usd);
  return Object.freeze({
    provider: provider.name,
    stripPrefix: (block.strip_prefix ?? '').replace(/\/+$/, ''),
    origin: url?.origin ?? '',
    // The default base is the provider URL's origin only: clients send the provider's own paths.
    basePath: block.upstream_base && url ? url.pathname.replace(/\/+$/, '') : '',
    allow: block.allow ? Object.freeze(compileModelGlobs(block.allow)) : undefined,
    chargeUsd: charge,
    timeouts: resolvePolicy([config.routing, provider.spec.routing], provider.spec.timeout_ms ?? config.server.upstream_timeout_ms).timeouts,
    credentials,
    headers: Object.freeze({ ...defaults, ...lowercaseKeys(provider.spec.headers ?? {}) }),
    missing: provider.missing ?? (url ? undefined : `${provider.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_BASE_URL`),
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
    credentials: () => ({}),
    headers: {},
    missing,
  });
}

function lowercaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
