/** What the Azure suites share: the registered Entra app, the resource key, the checks, and a gateway process trusting the fake authority. */
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../../helpers/free-port.js';
import { TEST_KEY, type TestGateway } from '../../../helpers/gateway.js';
import type { KitUpstream } from '../../../kit/fake-upstream.js';
import { spawnGateway } from '../../budget/support/process.js';
import type { AzureFront } from './azure-front.js';
import type { EntraServer } from './entra-server.js';

export const MODEL = 'azure/gpt-6.1-terra';
export const APP = { tenantId: '72f988bf-0000-4000-8000-00000000cafe', clientId: '0f2c4a3e-1111-4111-8111-000000000001', clientSecret: 'entra-test-secret-0123456789' };
export const AZURE_KEY = 'azure-resource-key-0123456789abcdef';

export function expectClean(front: AzureFront, kit: KitUpstream, auth: 'api-key' | 'entra'): void {
  expect(front.violations, 'requests Azure would refuse').to.deep.equal([]);
  expect(kit.violations, 'requests the OpenAI API would refuse').to.deep.equal([]);
  expect(front.unauthenticated, 'calls refused for their credentials').to.equal(0);
  expect(front.calls.at(-1)?.auth).to.equal(auth);
}

/** A gateway process trusting the fake authority's certificate, as an operator's would (the repo config unless `configPath`). */
export async function spawnEntraGateway(entra: EntraServer, front: AzureFront, extra: Record<string, string> = {}, configPath = resolve(process.cwd(), 'gateway.yaml')): Promise<TestGateway & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-entra-'));
  const ca = join(dir, 'authority.pem');
  writeFileSync(ca, entra.cert);
  const port = await freePort();
  const proc = await spawnGateway(configPath, port, TEST_KEY, {
    GATEWAY_API_KEYS: TEST_KEY,
    PORT: String(port),
    HOST: '127.0.0.1',
    GATEWAY_FILES_DIR: join(dir, 'files'),
    GATEWAY_RETRY_ATTEMPTS: '1',
    NODE_EXTRA_CA_CERTS: ca,
    AZURE_OPENAI_ENDPOINT: front.url,
    AZURE_TENANT_ID: APP.tenantId,
    AZURE_CLIENT_ID: APP.clientId,
    AZURE_CLIENT_SECRET: APP.clientSecret,
    AZURE_AUTHORITY_HOST: entra.url,
    ...extra,
  });
  return { url: proc.url, key: TEST_KEY, dir, close: async () => { await proc.stop(); rmSync(dir, { recursive: true, force: true }); } };
}
