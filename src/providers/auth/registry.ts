import type { AuthBlock } from '../../config/types.js';
import { apiKeyKind } from './api-key.js';
import { awsKind } from './aws.js';
import { azureKind } from './azure.js';
import { googleKind } from './google.js';
import type { AuthKind } from './types.js';

/**
 * Every `auth.type` and its implementation. A kind's module holds no library: google-auth-library,
 * @azure/identity and the AWS SDK are imported dynamically on the first credential fetch.
 */
const kinds: { readonly [T in AuthBlock['type']]: AuthKind<Extract<AuthBlock, { type: T }>> } = {
  api_key: apiKeyKind,
  aws: awsKind,
  google: googleKind,
  azure: azureKind,
};

/** The implementation of an `auth.type`. */
export function authKindOf<A extends AuthBlock>(auth: A): AuthKind<A> {
  return kinds[auth.type] as unknown as AuthKind<A>;
}

/** The `auth.type` names (lint's vocabulary). */
export const authTypes: readonly string[] = Object.keys(kinds);
