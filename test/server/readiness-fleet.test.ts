import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

/** GET /readyz reports what the fleet needs to agree on (issue 12.6). */
describe('server/handlers/readiness (fleet fields)', () => {
  const prefix = `gwtest-readyz-${randomBytes(4).toString('hex')}:`;
  let memory: TestGateway;
  let a: TestGateway;
  let b: TestGateway;
  before(async () => {
    memory = await startGateway();
    const env = { GATEWAY_STORE_URL: `redis://127.0.0.1:6379/0?prefix=${prefix}`, GATEWAY_REALTIME_SECRET: 'readyz-test-secret' };
    a = await startGateway({ env });
    b = await startGateway({ env });
  });
  after(async () => {
    await Promise.all([memory?.close(), a?.close(), b?.close()]);
  });

  const readyz = async (gw: TestGateway) => {
    const res = await fetch(`${gw.url}/readyz`);
    return { status: res.status, body: (await res.json()) as { status: string; config_hash: string; instance_id: string; store: { kind: string; healthy: boolean } } };
  };

  it('answers ready with the config hash, the instance id and the store kind and health', async () => {
    const { status, body } = await readyz(memory);
    expect(status).to.equal(200);
    expect(body.status).to.equal('ready');
    expect(body.config_hash).to.match(/^[0-9a-f]{64}$/);
    expect(body.instance_id).to.be.a('string').and.not.equal('');
    expect(body.store).to.deep.equal({ kind: 'memory', healthy: true });
  });

  it('gives two instances of one config on one Redis the same hash and different instance ids', async () => {
    const [ra, rb] = await Promise.all([readyz(a), readyz(b)]);
    expect(ra.body.store).to.deep.equal({ kind: 'redis', healthy: true });
    expect(ra.body.config_hash).to.equal(rb.body.config_hash);
    expect(ra.body.instance_id).to.not.equal(rb.body.instance_id);
    // The store URL differs from the memory gateway's, so the effective config does too.
    expect(ra.body.config_hash).to.not.equal((await readyz(memory)).body.config_hash);
  });
});
