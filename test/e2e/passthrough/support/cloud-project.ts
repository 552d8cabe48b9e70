import { copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { projectWithRoutes } from './project.js';

/** Largest body the small Bedrock route holds to sign (its 413 is tested with bodies above it). */
export const SMALL_SIGNED_BODY = 1024;

/** Pass-through routes to the repo's cloud providers: Bedrock (SigV4), Vertex (Google tokens), Azure (api-key or Entra). */
const CLOUD_ROUTES: Record<string, Record<string, unknown>> = {
  'passthrough-bedrock.yaml': { method: ['GET', 'POST'], path: '/passthrough/bedrock/{*rest}', auth: 'key', envelope: 'default', operation: 'proxy', proxy: { provider: 'bedrock', strip_prefix: '/passthrough/bedrock', allow: ['/model/*', '/async-invoke'], charge_usd: '0.001' } },
  'pt-bedrock-small.yaml': { method: 'POST', path: '/pt/bedrock-small/{*rest}', auth: 'key', envelope: 'messages', operation: 'proxy', proxy: { provider: 'bedrock', strip_prefix: '/pt/bedrock-small', allow: ['/model/*'], charge_usd: '0.001', max_signed_body_bytes: SMALL_SIGNED_BODY } },
  'passthrough-vertex.yaml': { method: 'POST', path: '/passthrough/vertex/{*rest}', auth: 'key', envelope: 'default', operation: 'proxy', proxy: { provider: 'vertex', strip_prefix: '/passthrough/vertex', allow: ['/v1/projects/*'], charge_usd: '0.001' } },
  'passthrough-azure.yaml': { method: 'POST', path: '/passthrough/azure/{*rest}', auth: 'key', envelope: 'default', operation: 'proxy', proxy: { provider: 'azure', strip_prefix: '/passthrough/azure', allow: ['/openai/v1/*'], charge_usd: '0.001' } },
};

/** The repo's gateway.yaml and routes, plus CLOUD_ROUTES, in a temporary project; returns its gateway.yaml. */
export function writeCloudPassthroughProject(): string {
  const dir = projectWithRoutes('gw-pt-cloud-', CLOUD_ROUTES);
  const file = join(dir, 'gateway.yaml');
  copyFileSync(resolve(process.cwd(), 'gateway.yaml'), file);
  return file;
}
