import type { Env } from '../config/env.js';
import type { AuthBlock, ProviderSpec, UpstreamSpec } from '../config/types.js';
import { authKindOf } from './auth/registry.js';
import type { AuthContext } from './auth/types.js';
import { platformOf } from './platforms/index.js';
import type { Placement } from './platforms/types.js';
import type { UpstreamAccess } from './types.js';

/** One deployment of a provider resolved against the environment. */
export interface ResolvedDeployment {
  /** A key the dialect sends in its own header (the `api_key_env` short form). */
  readonly apiKey?: string;
  readonly baseUrl?: string;
  /** Platform shape and credentials, when the provider has either. */
  readonly access?: UpstreamAccess;
  /** What must be set before the deployment can be used (follows "set "); undefined = usable. */
  readonly missing?: string;
  /** Secret values it reads, to be redacted wherever an upstream echoes them. */
  readonly secrets: ReadonlyArray<string | undefined>;
}

/** `PROVIDER_NAME` of a provider name: the prefix of its default variables. */
export function envPrefixOf(provider: string): string {
  return provider.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/**
 * Resolves one deployment (`upstream`, or the provider itself): base URL (variable, `base_url`,
 * else the platform's host), credentials (the `auth` block, else `api_key_env`), what is
 * missing, and its UpstreamAccess. No credential is fetched and no library is loaded here: an
 * authorizer fetches on first use. `needsKey` false (the sandbox) skips credentials entirely.
 */
export function resolveDeployment(provider: string, spec: ProviderSpec, upstream: UpstreamSpec | undefined, env: Env, needsKey: boolean): ResolvedDeployment {
  const prefix = envPrefixOf(provider);
  const platform = platformOf(spec);
  const place: Placement = { project: spec.project, location: upstream?.location ?? spec.location, region: upstream?.region ?? spec.region };
  const urlVar = upstream?.base_url_env ?? spec.base_url_env ?? `${prefix}_BASE_URL`;
  const baseUrl = env[urlVar] || spec.base_url || platform?.defaultBaseUrl?.(place);
  if (!needsKey) return { baseUrl, secrets: [] };
  const auth = authOf(spec, upstream, prefix);
  const ctx: AuthContext = { provider, auth, env, place: { name: upstream?.name ?? 'default', region: place.region, location: place.location, baseUrl } };
  const kind = authKindOf(auth);
  const apiKey = kind.apiKey?.(ctx);
  const secrets = kind.secrets?.(ctx) ?? [];
  // Everything that is missing at once, so an operator fixes it in one go.
  const lacking = [kind.missing(ctx), platform?.missing?.(place, provider), baseUrl ? undefined : urlVar].filter((m) => m !== undefined);
  const missing = lacking.length > 0 ? lacking.join(' and ') : undefined;
  if (missing) return { apiKey, baseUrl, missing, secrets };
  const authorizer = kind.create(ctx);
  const shape = platform?.shaper(spec.type, place);
  const answer = platform?.answer?.(spec.type);
  const access = authorizer || shape || platform ? Object.freeze({ authorizer, shape, place, answer, failure: platform?.failure }) : undefined;
  return { apiKey, baseUrl, access, secrets };
}

/**
 * The deployment's auth block: the provider's `auth`, else the `api_key_env` short form
 * (default `<NAME>_API_KEY`). A deployment's own `api_key_env` replaces the key variable.
 */
function authOf(spec: ProviderSpec, upstream: UpstreamSpec | undefined, prefix: string): AuthBlock {
  const own = upstream?.api_key_env;
  const auth = spec.auth ?? { type: 'api_key', api_key_env: spec.api_key_env ?? `${prefix}_API_KEY` };
  if (own && (auth.type === 'api_key' || auth.type === 'azure')) return { ...auth, api_key_env: own };
  return auth;
}
