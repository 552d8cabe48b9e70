import type { Env } from '../../config/env.js';

/** The service principal settings of the gateway's environment (which may not be process.env). */
export interface EntraSettings {
  tenantId?: string;
  clientId?: string;
  clientSecret?: string;
  certificatePath?: string;
  certificatePassword?: string;
  tokenFilePath?: string;
}

/** The service principal and workload identity settings of an environment (AZURE_* variables). */
export function entraSettings(env: Env): EntraSettings {
  return {
    tenantId: env.AZURE_TENANT_ID || undefined,
    clientId: env.AZURE_CLIENT_ID || undefined,
    clientSecret: env.AZURE_CLIENT_SECRET || undefined,
    certificatePath: env.AZURE_CLIENT_CERTIFICATE_PATH || undefined,
    certificatePassword: env.AZURE_CLIENT_CERTIFICATE_PASSWORD || undefined,
    tokenFilePath: env.AZURE_FEDERATED_TOKEN_FILE || undefined,
  };
}
