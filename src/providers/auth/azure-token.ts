import { ChainedTokenCredential, ClientCertificateCredential, ClientSecretCredential, DefaultAzureCredential, WorkloadIdentityCredential, type TokenCredential } from '@azure/identity';
import type { EntraSettings } from './entra-settings.js';
import type { Expiring } from './cached-credential.js';

/**
 * Fetches Entra ID tokens through @azure/identity (loaded only by dynamic import from
 * ./azure.ts), in DefaultAzureCredential's order. The service principal and workload identity
 * settings are read from the gateway's environment (which tests and `<VAR>_FILE` secrets make
 * differ from process.env); DefaultAzureCredential then covers managed identity, the Azure CLI
 * and the rest. The caller caches and refreshes.
 */
export function azureTokenFetcher(options: EntraSettings & { authorityHost?: string; scope: string }): () => Promise<Expiring<string>> {
  // A custom authority (tests, private clouds) is not in Entra's instance metadata.
  const common = options.authorityHost ? { authorityHost: options.authorityHost, disableInstanceDiscovery: true } : {};
  const chain: TokenCredential[] = [];
  const { tenantId, clientId } = options;
  if (tenantId && clientId && options.clientSecret) chain.push(new ClientSecretCredential(tenantId, clientId, options.clientSecret, common));
  else if (tenantId && clientId && options.certificatePath) {
    chain.push(new ClientCertificateCredential(tenantId, clientId, { certificatePath: options.certificatePath, certificatePassword: options.certificatePassword }, common));
  }
  if (tenantId && clientId && options.tokenFilePath) chain.push(new WorkloadIdentityCredential({ tenantId, clientId, tokenFilePath: options.tokenFilePath, ...common }));
  if (chain.length === 0) chain.push(new DefaultAzureCredential(common));
  const credential = chain.length === 1 ? chain[0]! : new ChainedTokenCredential(...chain);
  return async () => {
    const token = await credential.getToken(options.scope);
    if (!token) throw new Error('Entra ID returned no token');
    return { value: token.token, expiresAt: token.expiresOnTimestamp };
  };
}
