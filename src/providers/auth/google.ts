import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../../config/env.js';
import type { GoogleAuthSpec } from '../../config/types.js';
import { bearerAuthorizer, fingerprint } from './authorizers.js';
import { CachedCredential, sharedCredential, type Expiring } from './cached-credential.js';
import type { AuthContext, AuthKind } from './types.js';

/** Variables that say a GCP metadata server answers (GCE, GKE workload identity, Cloud Run, App Engine, Functions). */
const METADATA_HINTS = ['GCE_METADATA_HOST', 'GCE_METADATA_IP', 'K_SERVICE', 'CLOUD_RUN_JOB', 'GAE_SERVICE', 'FUNCTION_TARGET'];

/** Where Application Default Credentials would come from, in google-auth-library's order; undefined = nowhere. */
export function googleCredentialSource(ctx: AuthContext<GoogleAuthSpec>): { source: string; keyFilename?: string } | undefined {
  const fileVar = ctx.auth.credentials_file_env ?? 'GOOGLE_APPLICATION_CREDENTIALS';
  const file = ctx.env[fileVar];
  if (file) return existsSync(file) ? { source: `credentials file $${fileVar}`, keyFilename: file } : undefined;
  if (existsSync(gcloudAdcFile(ctx.env))) return { source: 'gcloud application-default credentials' };
  const hint = METADATA_HINTS.find((v) => ctx.env[v]);
  return hint ? { source: 'the GCP metadata server' } : undefined;
}

function gcloudAdcFile(env: Env): string {
  const dir = env.CLOUDSDK_CONFIG || join(env.HOME || homedir(), '.config', 'gcloud');
  return join(dir, 'application_default_credentials.json');
}

/**
 * `auth: {type: google}`: OAuth2 access tokens (scope cloud-platform) from google-auth-library's
 * Application Default Credentials: the file named by `credentials_file_env` (default
 * GOOGLE_APPLICATION_CREDENTIALS: a service account or an external_account for workload
 * identity federation), then gcloud's application-default login, then the metadata server.
 */
export const googleKind: AuthKind<GoogleAuthSpec> = {
  missing(ctx) {
    if (googleCredentialSource(ctx)) return undefined;
    const fileVar = ctx.auth.credentials_file_env ?? 'GOOGLE_APPLICATION_CREDENTIALS';
    const file = ctx.env[fileVar];
    if (file) return `${fileVar} to a readable credentials file (${file} does not exist)`;
    return `${fileVar} (a service-account or external_account JSON file), or run where Application Default Credentials exist (gcloud auth application-default login, a GCP metadata server)`;
  },
  create(ctx) {
    const where = googleCredentialSource(ctx) ?? { source: 'Application Default Credentials' };
    const tokenUrl = ctx.auth.token_url_env ? ctx.env[ctx.auth.token_url_env] || undefined : undefined;
    const key = `google|${where.keyFilename ?? ''}|${tokenUrl ?? ''}|${fingerprint(where.keyFilename, tokenUrl)}`;
    const token = sharedCredential(key, () => new CachedCredential(lazyGoogleTokens({ keyFilename: where.keyFilename, tokenUrl })));
    return bearerAuthorizer(ctx.provider, where.source, token);
  },
};

/** A token fetcher that loads google-auth-library on its first call only. */
function lazyGoogleTokens(options: { keyFilename?: string; tokenUrl?: string }): () => Promise<Expiring<string>> {
  let fetcher: Promise<() => Promise<Expiring<string>>> | undefined;
  return async () => {
    fetcher ??= import('./google-token.js').then((m) => m.googleTokenFetcher(options));
    return (await fetcher)();
  };
}
