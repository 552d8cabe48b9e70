import { expect } from 'chai';
import { makePng } from '../../kit/providers/media-bytes.js';
import { TEST_KEY } from '../../helpers/gateway.js';
import { lastRequest, startProviderRig, type ProviderRig } from './setup.js';

const OTHER_KEY = 'other-key-0123456789';

describe('e2e/providers/video', () => {
  let rig: ProviderRig;
  before(async () => { rig = await startProviderRig({ GATEWAY_API_KEYS: `${TEST_KEY},${OTHER_KEY}` }); });
  after(async () => { await rig.close(); });
  afterEach(() => expect(rig.violations(), 'requests a provider would have refused').to.deep.equal([]));
  beforeEach(() => {
    rig.google.pollsUntilDone = 2;
    rig.google.failWith = undefined;
    rig.google.failPolls = 0;
  });

  it('submits to Veo, polls the operation until done and returns the downloaded video', async () => {
    const res = await rig.post('/v1/video/generations', { model: 'google/veo-3.1', prompt: 'a fox in snow', duration_seconds: 8, aspect_ratio: '16:9', resolution: '1080p', negative_prompt: 'blur', max_wait_seconds: 10 });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    expect(lastRequest(rig.google, '/v1beta/models/veo-3.1-generate-preview:predictLongRunning').json).to.deep.equal({
      instances: [{ prompt: 'a fox in snow' }],
      parameters: { durationSeconds: 8, aspectRatio: '16:9', resolution: '1080p', negativePrompt: 'blur' },
    });
    expect(res.json).to.include({ object: 'video.generation', status: 'completed', model: 'google/veo-3.1', duration_seconds: 8 });
    expect(String(res.json.id)).to.match(/^vid_/);
    const result = res.json.result as { url: string; content_type: string };
    expect(result.content_type).to.equal('video/mp4');
    expect(Buffer.from(result.url.replace(/^data:video\/mp4;base64,/, ''), 'base64').equals(rig.google.videoBytes)).to.equal(true);
    const polls = rig.google.requests.filter((r) => r.method === 'GET' && r.path.includes('/operations/'));
    expect(polls.length).to.be.at.least(2);
    expect(polls.every((p) => p.headers['x-goog-api-key'] === 'g-test')).to.equal(true);
    expect(lastRequest(rig.google, /:download$/).headers['x-goog-api-key']).to.equal('g-test');
  });

  it('answers 200 with the id and status at max_wait_seconds, then GET polls it to completion', async () => {
    rig.google.pollsUntilDone = 1_000_000;
    const started = Date.now();
    const res = await rig.post('/v1/video/generations', { model: 'google/veo-3.1-fast', prompt: 'waves', duration_seconds: 4, max_wait_seconds: 1 });
    const waited = Date.now() - started;
    expect(res.status).to.equal(200);
    expect(waited).to.be.within(900, 3000);
    expect(res.json).to.include({ object: 'video.generation', status: 'in_progress', model: 'google/veo-3.1-fast' });
    expect(res.json).to.not.have.property('result');

    const stillRunning = await rig.get(`/v1/video/generations/${String(res.json.id)}`);
    expect(stillRunning.status).to.equal(200);
    expect(stillRunning.json.status).to.equal('in_progress');

    rig.google.pollsUntilDone = 0;
    const done = await rig.get(`/v1/video/generations/${String(res.json.id)}`);
    expect(done.status).to.equal(200);
    expect(done.json).to.include({ id: res.json.id, status: 'completed' });
    expect((done.json.result as { url: string }).url).to.match(/^data:video\/mp4;base64,/);

    const pollsBefore = rig.google.requests.length;
    const again = await rig.get(`/v1/video/generations/${String(res.json.id)}`);
    expect(again.json.status).to.equal('completed');
    expect(rig.google.requests.length, 'a finished job is answered from the job store').to.equal(pollsBefore);
  });

  it('lets only the key that created a job poll it', async () => {
    rig.google.pollsUntilDone = 1_000_000;
    const res = await rig.post('/v1/video/generations', { model: 'google/veo-3.1', prompt: 'x', duration_seconds: 4, max_wait_seconds: 1 });
    const other = await rig.get(`/v1/video/generations/${String(res.json.id)}`, OTHER_KEY);
    expect(other.status).to.equal(404);
    expect((other.json.error as Record<string, unknown>).code).to.equal('job_not_found');
  });

  it('sends a first-frame image_url as inline bytes and media images as reference images', async () => {
    const png = makePng(2, 2);
    const dataUrl = `data:image/png;base64,${png.toString('base64')}`;
    const res = await rig.post('/v1/video/generations', { model: 'google/veo-3.1', prompt: 'animate', duration_seconds: 6, image_url: dataUrl, media: [{ type: 'image', url: dataUrl }] });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    const instance = (lastRequest(rig.google, /predictLongRunning$/).json as { instances: Array<Record<string, unknown>> }).instances[0]!;
    expect(instance.image).to.deep.equal({ bytesBase64Encoded: png.toString('base64'), mimeType: 'image/png' });
    expect(instance.referenceImages).to.deep.equal([{ referenceType: 'asset', image: { bytesBase64Encoded: png.toString('base64'), mimeType: 'image/png' } }]);
  });

  it('refuses media kinds the model cannot take, naming the allowed ones', async () => {
    const res = await rig.post('/v1/video/generations', { model: 'google/veo-3.1', prompt: 'x', duration_seconds: 4, media: [{ type: 'video', url: 'https://example.com/a.mp4' }] });
    expect(res.status).to.equal(400);
    expect((res.json.error as Record<string, unknown>).code).to.equal('unsupported_value');
    expect((res.json.error as Record<string, unknown>).message).to.contain("does not support media[].type 'video'; supported: image");
  });

  it('reports a failed operation as a finished job with its error', async () => {
    rig.google.failWith = 'The prompt was blocked.';
    const res = await rig.post('/v1/video/generations', { model: 'google/veo-3.1', prompt: 'x', duration_seconds: 4 });
    expect(res.status).to.equal(200);
    expect(res.json).to.include({ status: 'failed' });
    expect(res.json.error).to.deep.equal({ code: 'job_failed', message: 'The prompt was blocked.' });
  });

  it('answers 200 in_progress (job kept) when the provider fails while the gateway waits, and polls on later', async () => {
    rig.google.failPolls = 1;
    const res = await rig.post('/v1/video/generations', { model: 'google/veo-3.1', prompt: 'x', duration_seconds: 4, max_wait_seconds: 10 });
    expect(res.status).to.equal(200);
    expect(res.json.status).to.equal('in_progress');
    const later = await rig.get(`/v1/video/generations/${String(res.json.id)}`);
    expect(later.status).to.equal(200);
    expect(later.json.status).to.be.oneOf(['in_progress', 'completed']);
  });

  it('keeps the sandbox job shape', async () => {
    const sandbox = await rig.post('/v1/video/generations', { model: 'sandbox/video-1', prompt: 'x', duration_seconds: 1, max_wait_seconds: 5 });
    const real = await rig.post('/v1/video/generations', { model: 'google/veo-3.1', prompt: 'x', duration_seconds: 4 });
    expect(Object.keys(real.json).sort()).to.deep.equal(Object.keys(sandbox.json).sort());
    expect(Object.keys(real.json.result as object).sort()).to.deep.equal(Object.keys(sandbox.json.result as object).sort());
  });

  describe('openai videos API (mapped for hosts of it; no catalog model today)', () => {
    let sora: ProviderRig;
    before(async () => {
      sora = await startProviderRig({}, { models: [{ id: 'openai/sora-2', provider: 'openai', upstream: 'sora-2', endpoints: ['/v1/video/generations'] }] });
    });
    after(async () => { await sora.close(); });
    afterEach(() => expect(sora.violations(), 'requests a provider would have refused').to.deep.equal([]));

    it('creates the video as JSON, polls its status and downloads /content with the key', async () => {
      const png = makePng(2, 2);
      const res = await sora.post('/v1/video/generations', { model: 'openai/sora-2', prompt: 'a cat', duration_seconds: 8, aspect_ratio: '9:16', image_url: `data:image/png;base64,${png.toString('base64')}` });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(lastRequest(sora.openai, '/v1/videos').json).to.deep.equal({ model: 'sora-2', prompt: 'a cat', seconds: '8', size: '720x1280', input_reference: { image_url: `data:image/png;base64,${png.toString('base64')}` } });
      expect(sora.openai.findings.at(-1)).to.deep.equal({ path: '/v1/videos', errors: [] });
      expect(res.json).to.include({ status: 'completed', model: 'openai/sora-2', duration_seconds: 8 });
      const url = (res.json.result as { url: string }).url;
      expect(Buffer.from(url.replace(/^data:video\/mp4;base64,/, ''), 'base64').equals(sora.openai.videoBytes)).to.equal(true);
      expect(lastRequest(sora.openai, /\/content$/).headers.authorization).to.equal('Bearer sk-test');
    });

    it('refuses a duration the API does not offer', async () => {
      const res = await sora.post('/v1/video/generations', { model: 'openai/sora-2', prompt: 'x', duration_seconds: 5 });
      expect(res.status).to.equal(400);
      expect((res.json.error as Record<string, unknown>).message).to.contain("duration_seconds '5'; supported: 4, 8, 12");
    });
  });
});
