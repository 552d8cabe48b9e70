import { expect } from 'chai';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { startGateway, TEST_KEY, type TestGateway } from '../helpers/gateway.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/**
 * The engine serves any route file: a project with one extra routes/*.yaml (a second embeddings
 * path with its own schema) serves it with no code change.
 */
describe('config-driven routes', () => {
  let gw: TestGateway;
  before(async () => {
    const dir = makeTempDir('gw-extra-route-');
    cpSync(resolve(process.cwd(), 'routes'), join(dir, 'routes'), { recursive: true });
    cpSync(resolve(process.cwd(), 'test/fixtures/configs/extra-route/vectors.yaml'), join(dir, 'routes', 'vectors.yaml'));
    const doc = parseDocument(readFileSync(resolve(process.cwd(), 'gateway.yaml'), 'utf8'));
    const models = doc.get('models') as { items: Array<{ get(k: string): unknown; set(k: string, v: unknown): void }> };
    const embed = models.items.find((m) => m.get('id') === 'sandbox/embed-1')!;
    embed.set('endpoints', ['/v1/embeddings', '/v2/vectors']);
    writeFileSync(join(dir, 'gateway.yaml'), doc.toString());
    gw = await startGateway({ configPath: join(dir, 'gateway.yaml') });
  });
  after(() => gw.close());

  const post = (body: unknown) => fetch(`${gw.url}/v2/vectors`, { method: 'POST', headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('serves the extra route through the generic engine', async () => {
    const res = await post({ model: 'sandbox/embed-1', input: 'hello', dimensions: 8 });
    expect(res.status).to.equal(200);
    const body = await res.json() as { data: Array<{ embedding: number[] }> };
    expect(body.data[0]!.embedding).to.have.length(8);
  });
  it('validates with the extra route file schema', async () => {
    const res = await post({ model: 'sandbox/embed-1', input: 'hello', extra: 1 });
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).to.include('extra');
  });
  it('lists the new endpoint on the model card', async () => {
    const card = await (await fetch(`${gw.url}/v1/models/sandbox/embed-1`)).json() as { supported_endpoints: string[] };
    expect(card.supported_endpoints).to.include('/v2/vectors');
  });
});
