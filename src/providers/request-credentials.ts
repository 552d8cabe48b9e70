import type { ProviderSpec } from '../config/types.js';

/**
 * Credentials for one outgoing request, by a provider's auth type. A pass-through route (and
 * any caller that sends a request the gateway did not encode itself) asks the provider's
 * source for the headers that authenticate one request; static keys answer synchronously,
 * token-based types (google, azure) may fetch or refresh a token, request signers (aws) read
 * the method, URL and headers they sign.
 *
 * Cloud auth types plug in with registerCredentialType; a provider whose type has no source
 * is refused when its routes compile (never silently sent without credentials).
 */

/** What a credential source sees of the request it authenticates. */
export interface CredentialRequest {
  readonly method: string;
  /** The full upstream URL (path and query as sent). */
  readonly url: URL;
  /** The headers as they will be sent (lowercase names; client credentials already removed). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /**
   * Length of the body in bytes when the client declared it, undefined for a chunked body.
   * A signer that must hash the body refuses a body it cannot hash as it passes.
   */
  readonly bodyBytes?: number;
}

/** Headers that authenticate one request (lowercase names); they replace the client's. */
export type RequestCredentials = (request: CredentialRequest) => Record<string, string> | Promise<Record<string, string>>;

/** What a credential source is built from: one configured provider. */
export interface CredentialProvider {
  readonly name: string;
  readonly spec: ProviderSpec;
  /** The provider's API key (from `api_key_env`), when it has one. */
  readonly apiKey?: string;
  /** The provider type's own key headers (its dialect's), when the type defines them. */
  readonly keyHeaders?: (apiKey: string) => Record<string, string>;
}

/** Builds the credentials of one provider (once, when its routes compile). */
export type CredentialSource = (provider: CredentialProvider) => RequestCredentials;

const sources = new Map<string, CredentialSource>([['api_key', apiKeyCredentials]]);

/** Registers the credential source of an auth type (the cloud auth modules call it). */
export function registerCredentialType(type: string, source: CredentialSource): void {
  sources.set(type, source);
}

/** Auth types that can authenticate a request the gateway forwards. */
export function credentialTypes(): ReadonlySet<string> {
  return new Set(sources.keys());
}

/** A provider's auth type: `auth.type` when declared, else `api_key` (`api_key_env` is its short form). */
export function authTypeOf(spec: ProviderSpec): string {
  const auth = (spec as { auth?: unknown }).auth;
  const type = auth && typeof auth === 'object' ? (auth as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : 'api_key';
}

/** The credentials of a provider, or undefined when its auth type has no source yet. */
export function credentialsFor(provider: CredentialProvider): RequestCredentials | undefined {
  return sources.get(authTypeOf(provider.spec))?.(provider);
}

/**
 * A static API key: the provider type's own headers (OpenAI `Authorization: Bearer`, Anthropic
 * `x-api-key` and `anthropic-version` ...), else `Authorization: Bearer`. Built once.
 */
function apiKeyCredentials(provider: CredentialProvider): RequestCredentials {
  const key = provider.apiKey;
  const headers: Record<string, string> = key === undefined ? {} : lowercase(provider.keyHeaders ? provider.keyHeaders(key) : { authorization: `Bearer ${key}` });
  const frozen = Object.freeze(headers);
  return () => frozen;
}

function lowercase(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}
