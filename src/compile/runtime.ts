import type { RequestAuthorizer } from '../providers/auth/types.js';
import type { Pricing } from '../billing/pricing.js';
import type { SurfaceCodec } from '../codecs/codec.js';
import type { RequestValidator } from '../config/request-schema.js';
import type { GatewayConfig, KeySpec, ModelSpec, ProviderSpec, RouteSpec } from '../config/types.js';
import type { ProviderImplementation, UpstreamAccess } from '../providers/types.js';
import type { RoutingPolicy } from '../routing/policy.js';
import type { RouterSpec, UpstreamRef } from '../routing/targets.js';

/** A route with everything prepared at startup (like @koa/router's Layer). */
export interface CompiledRoute {
  readonly spec: RouteSpec;
  /** The route's request validator, compiled once (on its first request). */
  readonly validate?: RequestValidator;
  readonly validateMultipart?: RequestValidator;
  /** Client text format, for text routes. */
  readonly surface?: SurfaceCodec;
  /**
   * Body fields that are payload, not tunable parameters: `model`, required fields, fields of
   * "at least one of" rules and the stream flag. Never dropped by a model's parameter list.
   */
  readonly payloadFields: ReadonlySet<string>;
  /**
   * Fields of this route that are tunable parameters: names some catalog model lists in its
   * `parameters`, minus payload fields. Only these are dropped for a model that lacks them;
   * anything else (content such as `system`, fields the gateway does not know) is forwarded.
   */
  readonly tunableParameters: ReadonlySet<string>;
  /** A pass-through route's plan (`operation: proxy`), compiled against its provider. */
  readonly proxy?: ProxyPlan;
}

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
  /**
   * Puts the provider's credentials on a forwarded request: the provider's own authorizer
   * (src/providers/auth, the same credentials as its model calls). Undefined only when the
   * provider is not configured (`missing` says what to set).
   */
  readonly authorizer?: RequestAuthorizer;
  /** Largest body held whole to be signed (`proxy.max_signed_body_bytes`), when the authorizer signs bodies. */
  readonly maxSignedBodyBytes: number;
  /** Extra headers the provider declares (`providers.<name>.headers`), set when the client sent none. */
  readonly headers: Readonly<Record<string, string>>;
  /** The environment variable the provider still needs (the route answers 503 until it is set). */
  readonly missing?: string;
}

/** A provider resolved against the environment. */
export interface ResolvedProvider {
  readonly name: string;
  readonly spec: ProviderSpec;
  readonly impl: ProviderImplementation;
  readonly apiKey?: string;
  readonly baseUrl?: string;
  /** Platform shape and credentials of its first deployment (cloud providers). */
  readonly access?: UpstreamAccess;
  /** What must be set before the provider can be used (a variable, or credentials); undefined = enabled. */
  readonly missing?: string;
  /** Its usable deployments (one `default` when `upstreams` is not declared), chosen by weight. */
  readonly upstreams: readonly UpstreamRef[];
}

/** A catalog model with its provider and derived sets. */
export interface ModelEntry {
  readonly spec: ModelSpec;
  readonly provider: ResolvedProvider;
  /** The provider's own model name. */
  readonly upstream: string;
  /** Operation names of the routes the model's endpoints point at. */
  readonly operations: ReadonlySet<string>;
  readonly parameters: ReadonlySet<string>;
  /** SPEC 2.1 model card. */
  readonly card: Readonly<Record<string, unknown>>;
  /** Catalog prices parsed once (USD per unit as numbers). */
  readonly pricing: Pricing;
  /** Retries, deadlines and breaker of this model's calls (gateway -> provider -> model). */
  readonly policy: RoutingPolicy;
  /** Models tried in order when this one cannot answer (`fallbacks`). */
  readonly fallbacks: readonly string[];
  readonly hedgeAfterMs?: number;
  /** Set on router models (`route`): their provider is the synthetic `router`. */
  readonly router?: RouterSpec;
}

/** A discovery answer serialized once, with its strong ETag. */
export interface CachedBody { readonly body: string; readonly etag: string }

/** An accepted gateway key: its sha256, the limits that go with it, its model globs compiled. */
export interface KeyEntry {
  readonly hash: Buffer;
  readonly spec: KeySpec;
  readonly modelPatterns?: readonly RegExp[];
  /** Compiled `providers` globs: the providers this key may reach (undefined: all). */
  readonly providerPatterns?: readonly RegExp[];
  /** Stable id of a managed key (admin API); spend and limits follow it across rotations. */
  readonly id?: string;
  /** The team of a managed key; its budget holds across all the team's keys. */
  readonly team?: { readonly id: string; readonly name: string; readonly budget?: KeySpec['budget'] };
}

/** Everything the server needs, built from config at startup and then read-only. */
export interface Runtime {
  readonly config: GatewayConfig;
  readonly routes: readonly CompiledRoute[];
  /** The same routes by `METHOD path` (routeKey), so a request finds its route in a reloaded runtime. */
  readonly routesByKey: ReadonlyMap<string, CompiledRoute>;
  readonly models: ReadonlyMap<string, ModelEntry>;
  readonly providers: ReadonlyMap<string, ResolvedProvider>;
  /** Public model list (enabled, not hidden), serialized once. */
  readonly modelList: CachedBody;
  readonly keys: readonly KeyEntry[];
  /** Finds the entry of a presented key (see createKeyLookup: hashed once per key, not per request). */
  readonly findKey: (presented: string) => KeyEntry | undefined;
  /** Finds an operator key (auth.admin_keys plus auth.admin_keys_env: /metrics and /admin), cached like findKey. */
  readonly findAdminKey: (presented: string) => KeyEntry | undefined;
  /** Set when no key was configured and one was generated for this process. */
  readonly generatedKey?: string;
  /** Object storage credentials from `files.s3.access_key_env` / `secret_key_env` (AWS_* by default); absent = the SDK's default chain. */
  readonly fileCredentials?: { accessKeyId: string; secretAccessKey: string };
}

/** The key of a route in Runtime.routesByKey. */
export function routeKey(spec: Pick<RouteSpec, 'method' | 'path'>): string {
  return `${spec.method} ${spec.path}`;
}
