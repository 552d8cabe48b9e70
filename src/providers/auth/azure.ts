import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../../config/env.js';
import type { AzureAuth } from '../../config/types.js';
import { bearerAuthorizer, fingerprint, staticKeyAuthorizer } from './authorizers.js';
import { CachedCredential, sharedCredential, type Expiring } from './cached-credential.js';
import type { AuthContext, AuthKind } from './types.js';
import { entraSettings, type EntraSettings } from './entra-settings.js';

/** The scope of Azure OpenAI (Cognitive Services) tokens. */
export const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';

/** The Entra credential the environment offers, in DefaultAzureCredential's order; undefined = none found. */
export function azureCredentialSource(env: Env): string | undefined {
  const app = env.AZURE_TENANT_ID && env.AZURE_CLIENT_ID;
  if (app && env.AZURE_CLIENT_SECRET) return 'Entra service principal (AZURE_CLIENT_SECRET)';
  if (app && env.AZURE_CLIENT_CERTIFICATE_PATH) return 'Entra service principal (AZURE_CLIENT_CERTIFICATE_PATH)';
  if (app && env.AZURE_FEDERATED_TOKEN_FILE) return 'Entra workload identity (AZURE_FEDERATED_TOKEN_FILE)';
  if (env.IDENTITY_ENDPOINT || env.MSI_ENDPOINT) return 'Azure managed identity';
  // AZURE_TOKEN_CREDENTIALS names the chain's credential explicitly (e.g. ManagedIdentityCredential on a VM).
  if (env.AZURE_TOKEN_CREDENTIALS) return `DefaultAzureCredential (AZURE_TOKEN_CREDENTIALS=${env.AZURE_TOKEN_CREDENTIALS})`;
  if (existsSync(join(env.HOME || homedir(), '.azure', 'azureProfile.json'))) return 'Azure CLI login';
  return undefined;
}

/**
 * `auth: {type: azure}`: the `api-key` header when `api_key_env` is set, else Microsoft Entra ID
 * tokens for the Cognitive Services scope from @azure/identity: a service principal (secret or
 * certificate), workload identity, then the rest of DefaultAzureCredential (managed identity,
 * Azure CLI, ...).
 */
export const azureKind: AuthKind<AzureAuth> = {
  missing(ctx) {
    if (apiKeyOf(ctx) || azureCredentialSource(ctx.env)) return undefined;
    const key = ctx.auth.api_key_env ? `${ctx.auth.api_key_env} or ` : '';
    return `${key}Entra ID credentials (AZURE_TENANT_ID + AZURE_CLIENT_ID + AZURE_CLIENT_SECRET, AZURE_FEDERATED_TOKEN_FILE, a managed identity, or az login)`;
  },
  create(ctx) {
    const key = apiKeyOf(ctx);
    if (key) return staticKeyAuthorizer(`$${ctx.auth.api_key_env}`, key, 'api-key');
    const source = azureCredentialSource(ctx.env) ?? 'DefaultAzureCredential';
    const authorityHost = ctx.auth.authority_host_env ? ctx.env[ctx.auth.authority_host_env] || undefined : undefined;
    const scope = ctx.auth.scope ?? COGNITIVE_SERVICES_SCOPE;
    const settings = entraSettings(ctx.env);
    const cacheKey = `azure|${scope}|${authorityHost ?? ''}|${settings.tenantId ?? ''}|${settings.clientId ?? ''}|${fingerprint(settings.clientSecret, settings.certificatePath, settings.tokenFilePath)}`;
    const token = sharedCredential(cacheKey, () => new CachedCredential(lazyAzureTokens({ ...settings, authorityHost, scope })));
    return bearerAuthorizer(ctx.provider, source, token);
  },
  secrets: (ctx) => [apiKeyOf(ctx), ctx.env.AZURE_CLIENT_SECRET],
};

function apiKeyOf(ctx: AuthContext<AzureAuth>): string | undefined {
  return ctx.auth.api_key_env ? ctx.env[ctx.auth.api_key_env] || undefined : undefined;
}

/** A token fetcher that loads @azure/identity on its first call only. */
function lazyAzureTokens(options: EntraSettings & { authorityHost?: string; scope: string }): () => Promise<Expiring<string>> {
  let fetcher: Promise<() => Promise<Expiring<string>>> | undefined;
  return async () => {
    fetcher ??= import('./azure-token.js').then((m) => m.azureTokenFetcher(options));
    return (await fetcher)();
  };
}
