/**
 * Where AWS credentials for SigV4 come from, decided from the environment and the file system
 * alone (no library, no network), in the AWS SDK's default-chain order
 * (https://docs.aws.amazon.com/sdkref/latest/guide/standardized-credentials.html):
 * 1. the auth block's own variables (`access_key_id_env` + `secret_access_key_env`, optional
 *    `session_token_env`), when it names them;
 * 2. AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN);
 * 3. the shared files (AWS_PROFILE, ~/.aws/credentials, ~/.aws/config: keys, SSO, credential_process);
 * 4. web identity (IRSA on EKS): AWS_WEB_IDENTITY_TOKEN_FILE + AWS_ROLE_ARN;
 * 5. the ECS/EKS Pod Identity container endpoint: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or _FULL_URI;
 * 6. the EC2 instance role (IMDS), when the machine says it is an EC2 instance.
 * `role_arn` then assumes a role with whatever was found (STS AssumeRole).
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '../../config/env.js';
import type { AwsAuth } from '../../config/types.js';

/** Where credentials were found: a name for errors and logs (never a secret), and how to get them. */
export type AwsCredentialSource =
  | { kind: 'static'; source: string; accessKeyId: string; secretAccessKey: string; sessionToken?: string }
  | { kind: 'chain'; source: string };

/** The static keys of the auth block's own variables, else undefined (the default chain then). */
function explicitKeys(auth: AwsAuth, env: Env): AwsCredentialSource | 'missing' | undefined {
  if (auth.access_key_id_env === undefined && auth.secret_access_key_env === undefined) return undefined;
  const idVar = auth.access_key_id_env ?? 'AWS_ACCESS_KEY_ID';
  const secretVar = auth.secret_access_key_env ?? 'AWS_SECRET_ACCESS_KEY';
  const accessKeyId = env[idVar];
  const secretAccessKey = env[secretVar];
  if (!accessKeyId || !secretAccessKey) return 'missing';
  const sessionToken = auth.session_token_env ? env[auth.session_token_env] || undefined : undefined;
  return { kind: 'static', source: `$${idVar} and $${secretVar}${sessionToken ? ` (session $${auth.session_token_env})` : ''}`, accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

/** True when this machine is an EC2 instance (its DMI vendor or hypervisor id says so). */
function onEc2(): boolean {
  for (const [file, mark] of [['/sys/devices/virtual/dmi/id/sys_vendor', /amazon/i], ['/sys/hypervisor/uuid', /^ec2/i]] as const) {
    try {
      if (mark.test(readFileSync(file, 'utf8').trim())) return true;
    } catch {
      // not readable here: not that kind of machine
    }
  }
  return false;
}

/** Which step of the default chain would answer, named; undefined when none would. */
function defaultChainSource(env: Env): string | undefined {
  const home = env.HOME || homedir();
  const credentialsFile = env.AWS_SHARED_CREDENTIALS_FILE || join(home, '.aws', 'credentials');
  const configFile = env.AWS_CONFIG_FILE || join(home, '.aws', 'config');
  if (env.AWS_PROFILE || existsSync(credentialsFile) || existsSync(configFile)) return `the shared AWS config (profile ${env.AWS_PROFILE || 'default'})`;
  if (env.AWS_WEB_IDENTITY_TOKEN_FILE && env.AWS_ROLE_ARN) return 'web identity ($AWS_WEB_IDENTITY_TOKEN_FILE, $AWS_ROLE_ARN)';
  if (env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI || env.AWS_CONTAINER_CREDENTIALS_FULL_URI) return 'the container credentials endpoint';
  if (env.AWS_EC2_METADATA_DISABLED !== 'true' && (env.AWS_EC2_METADATA_SERVICE_ENDPOINT || onEc2())) return 'the EC2 instance role (IMDS)';
  return undefined;
}

/** Where this auth block's credentials come from, or undefined when nothing would provide them. */
export function findAwsCredentials(auth: AwsAuth, env: Env): AwsCredentialSource | undefined {
  const explicit = explicitKeys(auth, env);
  if (explicit === 'missing') return undefined;
  if (explicit) return explicit;
  // The chain's first step read from the gateway's own environment (which also holds `<VAR>_FILE`
  // secrets), exactly as the SDK's fromEnv would read it.
  if (env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY && !env.AWS_PROFILE) {
    return explicitKeys({ type: 'aws', access_key_id_env: 'AWS_ACCESS_KEY_ID', secret_access_key_env: 'AWS_SECRET_ACCESS_KEY', session_token_env: 'AWS_SESSION_TOKEN' }, env) as AwsCredentialSource;
  }
  const source = defaultChainSource(env);
  return source ? { kind: 'chain', source } : undefined;
}

/** What to set when no credentials would be found (follows "set "). */
export function describeMissingAwsCredentials(auth: AwsAuth): string {
  if (auth.access_key_id_env !== undefined || auth.secret_access_key_env !== undefined) {
    return `${auth.access_key_id_env ?? 'AWS_ACCESS_KEY_ID'} and ${auth.secret_access_key_env ?? 'AWS_SECRET_ACCESS_KEY'}`;
  }
  return 'AWS credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, or a container/instance role)';
}

/** Secret values the block reads (redacted wherever an upstream echoes them). */
export function awsSecrets(auth: AwsAuth, env: Env): Array<string | undefined> {
  return [env[auth.secret_access_key_env ?? 'AWS_SECRET_ACCESS_KEY'], env[auth.session_token_env ?? 'AWS_SESSION_TOKEN']];
}
