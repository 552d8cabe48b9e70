import type { AwsAuth } from '../../config/types.js';
import type { AuthKind } from './types.js';

/**
 * `auth: {type: aws}`: SigV4 request signing with credentials from the named variables or the
 * AWS default chain. The slot of the Bedrock work (issue 29, AWS part): until the signer is
 * plugged in here, a provider with this auth is listed as not configured, with the reason.
 * An implementation fills `missing` from the environment, `create` with an authorizer that
 * signs `OutgoingRequest`s (method, url, headers, body) using a `sharedCredential`.
 */
export const awsKind: AuthKind<AwsAuth> = {
  missing: () => 'AWS SigV4 signing (auth type aws is not available in this build)',
  create: () => undefined,
};
