import type { AwsAuth } from '../../config/types.js';
import type { AwsCredentialIdentity } from '@smithy/types';
import { awsSecrets, describeMissingAwsCredentials, findAwsCredentials, type AwsCredentialSource } from '../bedrock/aws-credential-source.js';
import type { ExpiringCredentials } from '../bedrock/aws-credential-fetch.js';
import { credentialOf, dropKeyHeaders, fingerprint } from './authorizers.js';
import { CachedCredential, sharedCredential, type Expiring } from './cached-credential.js';
import type { AuthKind, OutgoingRequest, RequestAuthorizer } from './types.js';

/** The region a deployment signs for when it names none (the platform reports a missing region first). */
const FALLBACK_REGION = 'us-east-1';

/**
 * `auth: {type: aws}`: SigV4 signatures (signing name `bedrock`) with credentials from the
 * block's own variables, else the AWS default chain (env, shared profile, web identity,
 * container and instance roles; ../bedrock/aws-credential-source.ts), optionally exchanged for
 * a role's through STS (`role_arn`, `sts_url_env`). Credentials are fetched once per source,
 * cached and refreshed in the background before they expire (CachedCredential); the AWS SDK
 * and the signer load on the first signed request only.
 */
export const awsKind: AuthKind<AwsAuth> = {
  missing: (ctx) => (findAwsCredentials(ctx.auth, ctx.env) ? undefined : describeMissingAwsCredentials(ctx.auth)),
  create(ctx) {
    const source = findAwsCredentials(ctx.auth, ctx.env);
    if (!source) return undefined;
    const region = ctx.place.region || FALLBACK_REGION;
    const stsUrl = ctx.auth.sts_url_env ? ctx.env[ctx.auth.sts_url_env] || undefined : undefined;
    const roleArn = ctx.auth.role_arn || undefined;
    const name = roleArn ? `role ${roleArn} assumed with ${source.source}` : source.source;
    const secret = source.kind === 'static' ? fingerprint(source.accessKeyId, source.secretAccessKey, source.sessionToken) : '';
    // STS is regional: an assumed role's credentials are cached per region too.
    const key = `aws|${source.kind}|${source.source}|${secret}|${roleArn ?? ''}|${roleArn ? region : ''}|${stsUrl ?? ''}`;
    const credentials = sharedCredential(key, () => new CachedCredential(lazyAwsCredentials(source, region, roleArn, stsUrl)));
    return sigV4Authorizer(ctx.provider, name, credentials, region);
  },
  secrets: (ctx) => awsSecrets(ctx.auth, ctx.env),
};

/** A credential fetcher that loads @aws-sdk/credential-providers on its first call only. */
function lazyAwsCredentials(source: AwsCredentialSource, region: string, roleArn?: string, stsUrl?: string): () => Promise<Expiring<AwsCredentialIdentity>> {
  // Static keys need no SDK: they are the credentials, without expiry.
  if (source.kind === 'static' && !roleArn) {
    const value: AwsCredentialIdentity = { accessKeyId: source.accessKeyId, secretAccessKey: source.secretAccessKey, ...(source.sessionToken ? { sessionToken: source.sessionToken } : {}) };
    return async () => ({ value });
  }
  let fetcher: Promise<() => Promise<ExpiringCredentials>> | undefined;
  return async () => {
    fetcher ??= import('../bedrock/aws-credential-fetch.js').then((m) => m.createAwsCredentialFetcher({ source, region, roleArn, stsUrl }));
    return (await fetcher)();
  };
}

let signing: Promise<typeof import('../bedrock/aws-signing.js')> | undefined;

/**
 * Signs each request with the cached credentials (the signature covers the body and the
 * headers, so it is made last, on the finished request). A credential that cannot be had
 * answers 502 `upstream_auth_error` naming provider and source, counted by the breaker.
 */
function sigV4Authorizer(provider: string, source: string, credentials: CachedCredential<AwsCredentialIdentity>, region: string): RequestAuthorizer {
  const sign = async (req: OutgoingRequest, got: AwsCredentialIdentity): Promise<void> => {
    // A dialect's key header (empty for a signed provider) must not reach AWS.
    dropKeyHeaders(req.headers);
    signing ??= import('../bedrock/aws-signing.js');
    await (await signing).signAwsRequest(req, got, region, 'bedrock');
  };
  return {
    source,
    signsBody: true,
    authorize(req, trace) {
      return Promise.resolve(credentialOf(credentials, provider, source, trace)).then((value) => sign(req, value));
    },
    warm: () => {
      credentials.warm();
      // The signer loads now too, so the first call does not wait for it.
      signing ??= import('../bedrock/aws-signing.js');
      signing.catch(() => undefined);
    },
  };
}

