import type { Env } from '../../config/env.js';
import type { AuthBlock } from '../../config/types.js';
import type { AttemptTrace } from '../../upstream/call-upstream.js';

/**
 * The credential framework (issue 29), the one way a provider's credentials are resolved. One
 * `auth.type` = one AuthKind in ./registry.ts; a kind says from the environment alone whether
 * credentials can be found (`missing`) and builds a RequestAuthorizer per provider deployment
 * (none for the `api_key_env` short form: the dialect's own key header carries the key, and
 * ./deployment-authorizer.ts puts that header on requests no dialect wrote). Model calls,
 * YAML mappings, realtime handshakes and pass-through routes all put credentials on through it. Libraries of cloud kinds (google-auth-library,
 * @azure/identity, the AWS SDK) are loaded by dynamic import on the first credential fetch, so
 * a gateway without clouds never loads them.
 */

/** One finished upstream request: an authorizer adds or replaces headers (it never changes the body). */
export interface OutgoingRequest {
  readonly method: string;
  readonly url: string;
  /** Mutable: the authorizer writes its headers here (`authorization`, `api-key`, SigV4's `x-amz-*`). */
  readonly headers: Record<string, string>;
  /** The exact bytes sent (SigV4 hashes them). */
  readonly body?: string | Uint8Array;
}

/** Puts one deployment's credentials on its requests. */
export interface RequestAuthorizer {
  /** Where credentials come from, for errors and logs (a variable or file name, never a secret). */
  readonly source: string;
  /**
   * Adds credentials to `req.headers`: synchronously (returns undefined) when they are cached,
   * else a promise. Credentials are fetched once and refreshed in the background, never per
   * request. On failure it records the attempt's failure in `trace` (a 502, counted by the
   * breaker) and throws the GatewayError 502 `upstream_auth_error` naming provider and source.
   */
  authorize(req: OutgoingRequest, trace?: AttemptTrace): void | Promise<void>;
  /** Starts fetching credentials now (startup), without waiting; a failure is reported on use. */
  warm?(): void;
  /**
   * True when the credential covers the body's bytes (SigV4 signs their SHA-256): a caller that
   * would stream a body (a pass-through route) must hold it whole and pass it as `body`.
   */
  readonly signsBody?: boolean;
}

/** Where one deployment is, as an auth kind sees it. */
export interface DeploymentPlace {
  /** `upstreams[].name` (`default` when none are declared). */
  readonly name: string;
  /** AWS region (the deployment's, else the provider's). */
  readonly region?: string;
  /** Google Cloud location (the deployment's, else the provider's). */
  readonly location?: string;
  readonly baseUrl?: string;
}

/** What an auth kind is given for one deployment. */
export interface AuthContext<A extends AuthBlock = AuthBlock> {
  /** Provider name (`providers.<name>`). */
  readonly provider: string;
  readonly auth: A;
  /** The environment compile() resolved the config with (`<VAR>_FILE` secrets included). */
  readonly env: Env;
  readonly place: DeploymentPlace;
}

/** One `auth.type`: the registry slot each kind fills (./registry.ts). */
export interface AuthKind<A extends AuthBlock = AuthBlock> {
  /**
   * What must be set before credentials can be found, written to follow "set ..." (e.g.
   * `AZURE_OPENAI_API_KEY or Entra credentials (AZURE_TENANT_ID, ...)`), or undefined. Reads the
   * environment and the file system only: no library is loaded, no network is used.
   */
  missing(ctx: AuthContext<A>): string | undefined;
  /**
   * The deployment's authorizer; cheap (the library loads on its first credential fetch).
   * Undefined when the dialect's own key header carries `apiKey` (plain `type: api_key`).
   */
  create(ctx: AuthContext<A>): RequestAuthorizer | undefined;
  /** A key the dialect sends in its own header (the `api_key_env` short form), when the kind has one. */
  apiKey?(ctx: AuthContext<A>): string | undefined;
  /** Secret values of the environment this kind reads (redacted wherever an upstream echoes them). */
  secrets?(ctx: AuthContext<A>): Array<string | undefined>;
}
