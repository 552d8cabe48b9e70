import { expect } from 'chai';
import { join } from 'node:path';
import { encodeWav } from '../../../src/providers/sandbox/wav.js';
import { countKeys, deletePrefix, SHARED_REDIS, uniquePrefix } from '../../store/support/redis.js';
import { freePort } from '../../helpers/free-port.js';
import { awayFromMinuteEdge, errorCode, post } from './support/client.js';
import { spawnGateway, type GatewayProcess } from './support/process.js';
import { newKey, writeProject, type TestKey } from './support/project.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

describe('e2e/budget: two gateway processes sharing Redis (127.0.0.1:6379)', function () {
  this.timeout(60_000);
  const prefix = uniquePrefix('e2e');
  const plain: TestKey = { key: newKey('plain'), name: 'plain' };
  const rpm: TestKey = { key: newKey('rpm'), name: 'rpm-10', rpm: 10 };
  const budget: TestKey = { key: newKey('budget'), name: 'five-images', budget: { usd: 0.05, period: 'total' } };
  const keys = [plain, rpm, budget];
  const gateways: GatewayProcess[] = [];

  before(async () => {
    const store = { url: `${SHARED_REDIS}?prefix=${encodeURIComponent(prefix)}`, on_error: 'closed' as const };
    const filesDir = makeTempDir('gw-shared-files-'); // bytes on a shared volume, records in Redis
    const ports = [await freePort(), await freePort()];
    const started = await Promise.all(ports.map((port) => spawnGateway(writeProject({ keys, store, port, discoveryRequests: 6, filesDir }), port, plain.key)));
    gateways.push(...started);
  });

  after(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await deletePrefix(SHARED_REDIS, prefix);
    expect(await countKeys(SHARED_REDIS, prefix)).to.equal(0);
  });

  const at = (i: number) => gateways[i % gateways.length]!.url;

  it('holds one requests-per-minute limit across both', async () => {
    await awayFromMinuteEdge();
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => post(`${at(i)}/v1/embeddings`, rpm.key, { model: 'sandbox/embed-1', input: 'hi' })));
    expect(results.filter((r) => r.status === 200)).to.have.length(10);
    expect(results.filter((r) => r.status === 429)).to.have.length(20);
    expect(results.filter((r) => r.status === 200).map((r) => r.headers.get('x-ratelimit-remaining-requests'))).to.have.members(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  });

  it('holds one budget: exactly 5 of 20 concurrent requests split over both fit', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => post(`${at(i)}/v1/images/generations`, budget.key, { model: 'sandbox/image-1', prompt: 'a cat' })));
    expect(results.filter((r) => r.status === 200)).to.have.length(5);
    for (const r of results.filter((x) => x.status !== 200)) {
      expect(r.status).to.equal(402);
      expect(errorCode(r.json)).to.equal('budget_exhausted');
    }
  });

  it('holds one anonymous discovery limit across both', async () => {
    await awayFromMinuteEdge();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await fetch(`${at(i)}/v1/models`)).status);
    expect(statuses.filter((s) => s === 200)).to.have.length(6);
    expect(statuses.slice(6)).to.deep.equal([429, 429, 429, 429, 429, 429]);
  });

  it('shares file records and video jobs', async () => {
    const wav = encodeWav(new Float32Array(16000), {});
    const upload = await post(`${at(0)}/v1/files`, plain.key, { content_base64: wav.toString('base64'), filename: 'a.wav', mime_type: 'audio/wav' });
    expect(upload.status, upload.text).to.equal(200);
    const t = await post(`${at(1)}/v1/audio/transcriptions`, plain.key, { model: 'sandbox/transcribe-1', file_id: upload.json.id });
    expect(t.status, t.text).to.equal(200);
    const job = await post(`${at(0)}/v1/video/generations`, plain.key, { model: 'sandbox/video-1', prompt: 'waves', duration_seconds: 2, max_wait_seconds: 1 });
    expect(job.status).to.equal(200);
    expect(job.json.status).to.equal('in_progress');
    await new Promise((r) => setTimeout(r, 1500));
    const polled = await fetch(`${at(1)}/v1/video/generations/${String(job.json.id)}`, { headers: { authorization: `Bearer ${plain.key}` } });
    expect(polled.status).to.equal(200);
    expect(((await polled.json()) as { status: string }).status).to.equal('completed');
  });
});
