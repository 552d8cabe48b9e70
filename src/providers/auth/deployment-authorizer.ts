import { staticHeadersAuthorizer } from './authorizers.js';
import type { RequestAuthorizer } from './types.js';

/** What a deployment's credentials were resolved into (src/providers/access.ts). */
export interface DeploymentCredentials {
  /** The key of the `api_key_env` short form (the dialect's own header carries it on model calls). */
  readonly apiKey?: string;
  /** The authorizer its auth kind made (cloud kinds; `api_key` with `header`). */
  readonly authorizer?: RequestAuthorizer;
}

/**
 * The authorizer of one deployment for a request no dialect wrote (a pass-through route's): the
 * auth kind's own when it made one, else the short form's key in the provider type's own key
 * headers (`keyHeaders`: what the dialect writes on model calls, e.g. `authorization: Bearer <k>`
 * or `x-api-key: <k>`). So a forwarded request carries exactly the credentials a model call of
 * the same deployment would. Undefined when the deployment has neither (it is then not configured).
 */
export function deploymentAuthorizer(d: DeploymentCredentials, keyHeaders: (key: string) => Record<string, string>): RequestAuthorizer | undefined {
  if (d.authorizer) return d.authorizer;
  if (!d.apiKey) return undefined;
  return staticHeadersAuthorizer('the provider API key', d.apiKey, keyHeaders(d.apiKey));
}
