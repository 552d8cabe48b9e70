/**
 * Fetches AWS credentials with @aws-sdk/credential-providers: static keys as they are, the
 * default chain through `fromNodeProviderChain` (env, shared files, SSO, process, web identity,
 * container, IMDS), and `role_arn` through STS AssumeRole with those as the source credentials
 * (`fromTemporaryCredentials`; its endpoint from `sts_url_env` when set). Loaded by dynamic
 * import on the first fetch, so a gateway without AWS providers never loads the SDK.
 */
import type { AwsCredentialIdentity } from '@smithy/types';
import type { AwsCredentialSource } from './aws-credential-source.js';

/** A credential and when it stops being valid (ms since the epoch; undefined = never). */
export interface ExpiringCredentials { value: AwsCredentialIdentity; expiresAt?: number }

/** Where and how one deployment fetches. */
export interface AwsFetchSettings {
  source: AwsCredentialSource;
  region: string;
  roleArn?: string;
  stsUrl?: string;
}

/** A fetcher of fresh credentials (each call asks the source again; caching is the caller's). */
export async function createAwsCredentialFetcher(settings: AwsFetchSettings): Promise<() => Promise<ExpiringCredentials>> {
  const { fromNodeProviderChain, fromTemporaryCredentials } = await import('@aws-sdk/credential-providers');
  const source = settings.source;
  const base: AwsCredentialIdentity | (() => Promise<AwsCredentialIdentity>) = source.kind === 'static'
    ? { accessKeyId: source.accessKeyId, secretAccessKey: source.secretAccessKey, ...(source.sessionToken ? { sessionToken: source.sessionToken } : {}) }
    : fromNodeProviderChain({ clientConfig: { region: settings.region } });
  const provider = settings.roleArn
    ? fromTemporaryCredentials({
      params: { RoleArn: settings.roleArn, RoleSessionName: 'model-gateway' },
      masterCredentials: base,
      clientConfig: { region: settings.region, ...(settings.stsUrl ? { endpoint: settings.stsUrl } : {}) },
    })
    : typeof base === 'function' ? base : async (): Promise<AwsCredentialIdentity> => base;
  // The node chain's memo takes `{forceRefresh}`; the other providers ignore it (AssumeRole fetches each time).
  const refreshable = provider as (options?: { forceRefresh?: boolean }) => Promise<AwsCredentialIdentity>;
  let fetched = false;
  return async () => {
    // The SDK's chain memoizes and, near expiry, hands back the old credentials while it refreshes
    // passively: the gateway's own cache asks only when it needs new ones, so it forces the refresh.
    const value: AwsCredentialIdentity = await (fetched ? refreshable({ forceRefresh: true }) : refreshable());
    fetched = true;
    return { value, ...(value.expiration ? { expiresAt: value.expiration.getTime() } : {}) };
  };
}
