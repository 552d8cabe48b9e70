import { expect } from 'chai';
import OpenAI from 'openai';
import type { TestGateway } from '../../helpers/gateway.js';
import { bootSandbox, delay, getJson, KEY_B, openAiClient, postJson, type ErrorEnvelope } from './helpers.js';

const MODEL = 'sandbox/video-1';

interface VideoJob { id: string; object: string; status: string; model: string; duration_seconds: number; result?: { url: string; content_type: string } }

/** The bytes of a data: URL result, checked to be an MP4 (ISO BMFF `ftyp` box first). */
function readMp4(url: string): Buffer {
  expect(url).to.match(/^data:video\/mp4;base64,/);
  const bytes = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
  expect(bytes.toString('latin1', 4, 8)).to.equal('ftyp');
  expect(bytes.readUInt32BE(0)).to.be.within(8, bytes.length);
  return bytes;
}

describe('e2e sandbox: video', () => {
  let gw: TestGateway;
  before(async () => { gw = await bootSandbox(); });
  after(() => gw.close());

  describe('POST /v1/video/generations', () => {
    it('answers 200 completed with an MP4 when the job finishes within max_wait_seconds', async () => {
      const started = Date.now();
      const res = await postJson<VideoJob>(gw, '/v1/video/generations', { model: MODEL, prompt: 'a paper boat on a river', duration_seconds: 4, max_wait_seconds: 5 });
      const elapsed = Date.now() - started;
      expect(res.status).to.equal(200);
      expect(res.body.object).to.equal('video.generation');
      expect(res.body.status).to.equal('completed');
      expect(res.body.duration_seconds).to.equal(4);
      expect(res.body.result!.content_type).to.equal('video/mp4');
      readMp4(res.body.result!.url);
      expect(elapsed).to.be.within(1500, 5000);
    });

    it('answers 200 in_progress when max_wait_seconds is shorter, then GET /v1/video/generations/{id} completes', async () => {
      const started = Date.now();
      const res = await postJson<VideoJob>(gw, '/v1/video/generations', { model: MODEL, prompt: 'a slow sunrise', duration_seconds: 2, max_wait_seconds: 1 });
      expect(Date.now() - started).to.be.within(800, 3000);
      expect(res.status).to.equal(200);
      expect(res.body.status).to.equal('in_progress');
      expect(res.body.result).to.equal(undefined);
      const id = res.body.id;
      expect(id).to.be.a('string').and.not.equal('');

      let job: VideoJob | undefined;
      for (let i = 0; i < 40; i++) {
        const poll = await getJson<VideoJob>(gw, `/v1/video/generations/${id}`);
        expect(poll.status).to.equal(200);
        job = poll.body;
        if (job.status === 'completed') break;
        expect(job.status).to.equal('in_progress');
        await delay(150);
      }
      expect(job!.status).to.equal('completed');
      expect(job!.id).to.equal(id);
      readMp4(job!.result!.url);
      expect(Date.now() - started).to.be.lessThan(5000);

      const stranger = await getJson<ErrorEnvelope>(gw, `/v1/video/generations/${id}`, KEY_B);
      expect(stranger.status).to.equal(404);
      expect(stranger.body.error.code).to.equal('job_not_found');
    });

    it('accepts media instead of a prompt', async () => {
      const res = await postJson<VideoJob>(gw, '/v1/video/generations', { model: MODEL, media: [{ type: 'image', url: 'https://example.com/a.png' }], duration_seconds: 1, max_wait_seconds: 1 });
      expect(res.status).to.equal(200);
      expect(res.body.object).to.equal('video.generation');
    });

    it('answers 400 without duration_seconds, and without prompt or media', async () => {
      const noDuration = await postJson<ErrorEnvelope>(gw, '/v1/video/generations', { model: MODEL, prompt: 'x' });
      expect(noDuration.status).to.equal(400);
      expect(noDuration.body.error.message).to.include('duration_seconds');
      const noPrompt = await postJson<ErrorEnvelope>(gw, '/v1/video/generations', { model: MODEL, duration_seconds: 1 });
      expect(noPrompt.status).to.equal(400);
      expect(noPrompt.body.error.message).to.include('prompt').and.include('media');
    });

    it('polling an unknown id with the openai SDK raises NotFoundError', async () => {
      const client = openAiClient(gw);
      try {
        await client.get('/video/generations/vid_does_not_exist');
        expect.fail('expected a 404');
      } catch (e) {
        expect(e).to.be.instanceOf(OpenAI.NotFoundError);
        expect((e as InstanceType<typeof OpenAI.NotFoundError>).status).to.equal(404);
        expect((e as InstanceType<typeof OpenAI.NotFoundError>).code).to.equal('job_not_found');
      }
    });
  });
});
