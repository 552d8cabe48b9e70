import type { GatewayConfig, RouteSpec } from '../config/types.js';
import { credentialsFor, authTypeOf, type RequestCredentials } from '../providers/request-credentials.js';
import { resolvePolicy, type RoutingPolicy } from '../routing/policy.js';
import { compileModelGlobs } from './keys.js';
import { dialects } from './registry.js';
import type { ResolvedProvider } from './runtime.js';

/**
 * A pass-through route (`operation: proxy`) compiled against its provider: where requests go,
 * which paths may go, what each costs and how it is authenticated. Built once per compile.
 */
export interface ProxyPlan {
  /** The provider's name (the ledger row's and the key allowlist's). */
  readonly provider: string;
  /** Normalised `strip_prefix` ('' when none). */
  readonly stripPrefix: string;
  /** Origin of the upstream (`scheme://host[:port]`): the proxy's target. */
  readonly origin: string;
  /** Path of `upstream_base` without its trailing slash ('' for an origin). */
  readonly basePath: string;
  /** Compiled `allow` globs (undefined: every path). */
  readonly allow?: readonly RegExp[];
  /** `charge_usd` as a number, when declared. */
  readonly chargeUsd?: number;
  /** The provider's deadlines (its `routing.timeouts` over the global ones). */
  readonly timeouts: RoutingPolicy['timeouts'];
  /** Headers that authenticate one request as the provider. */
  readonly credentials: RequestCredentials;
  /** Extra headers the provider declares (`providers.<name>.headers`), set when the client sent none. */
  readonly headers: Readonly<Record<string, string>>;
  /** The environment variable the provider still needs (the route answers 503 until it is set). */
  readonly missing?: string;
}

/** Why a pass-through route cannot be served (compile reports it at the route file). */
export class ProxyPlanError extends Error {}

/** Compiles the `proxy:` block of a route; throws ProxyPlanError when it cannot be served. */
export function compileProxyPlan(spec: RouteSpec, providers: ReadonlyMap<string, ResolvedProvider>, config: GatewayConfig): ProxyPlan {
  const block = spec.proxy!;
  const provider = providers.get(block.provider);
  if (!provider) throw new ProxyPlanError(`proxy.provider: unknown provider '${block.provider}'`);
  const dialect = dialects.get(provider.spec.type);
  const credentials = credentialsFor({
    name: provider.name,
    spec: provider.spec,
    apiKey: provider.apiKey,
    keyHeaders: dialect ? (key) => dialect.authHeaders(key, provider.spec.options ?? {}) : undefined,
  });
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
    headers: Object.freeze(lowercaseKeys(provider.spec.headers ?? {})),
    missing: provider.missing ?? (url ? undefined : `${provider.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_BASE_URL`),
  });
}

function lowercaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
