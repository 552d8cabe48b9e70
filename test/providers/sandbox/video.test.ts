import { expect } from 'chai';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { sandboxProvider } from '../../../src/providers/sandbox/index.js';
import type { OperationResult } from '../../../src/providers/types.js';
import { createFakeCall, MemoryJobStore } from './fakes.js';

const generate = sandboxProvider.operations!['video.generations']!;
const poll = sandboxProvider.operations!['video.generations.poll']!;

function bodyOf(result: OperationResult): Record<string, unknown> {
  expect(result.kind).to.equal('json');
  return (result as { body: Record<string, unknown> }).body;
}

async function expectNotFound(promise: Promise<unknown>): Promise<void> {
  try {
    await promise;
    expect.fail('should throw');
  } catch (e) {
    expect(e).to.be.instanceOf(GatewayError);
    expect((e as GatewayError).status).to.equal(404);
    expect((e as GatewayError).code).to.equal('job_not_found');
  }
}

describe('providers/sandbox/video', () => {
  describe('#generateVideo', () => {
    it('waits for the job and returns it completed with an MP4 data URL by default', async () => {
      const jobs = new MemoryJobStore();
      const started = Date.now();
      const result = await generate(createFakeCall('video.generations', { prompt: 'a sunset', duration_seconds: 4 }, { jobs }));
      const elapsed = Date.now() - started;
      expect(elapsed).to.be.within(1900, 3000);
      expect((result as { status?: number }).status ?? 200).to.equal(200);
      const body = bodyOf(result);
      expect(body).to.include({ object: 'video.generation', status: 'completed', model: 'sandbox/test-1', duration_seconds: 4 });
      expect(body.id).to.match(/^vid_[0-9a-f]{24}$/);
      expect(body.completed_at as number).to.be.at.least(body.created_at as number);
      const url = (body.result as { url: string }).url;
      expect(url).to.match(/^data:video\/mp4;base64,/);
      const mp4 = Buffer.from(url.split(',')[1]!, 'base64');
      expect(mp4.toString('latin1', 4, 8)).to.equal('ftyp');
      expect(mp4.readUInt32BE(0)).to.be.lessThan(mp4.length);
      const stored = await jobs.get(body.id as string);
      expect(stored).to.include({ status: 'completed', owner: 'owner-a', provider: 'sandbox' });
    });

    it('honours max_wait_seconds with a 200 in_progress, then completes when polled later', async () => {
      const jobs = new MemoryJobStore();
      const started = Date.now();
      const first = await generate(createFakeCall('video.generations', { prompt: 'rain', duration_seconds: 2, max_wait_seconds: 1 }, { jobs }));
      expect(Date.now() - started).to.be.within(900, 1600);
      expect((first as { status?: number }).status ?? 200, 'SPEC 4: 200 on success').to.equal(200);
      const queued = bodyOf(first);
      expect(queued.status).to.equal('in_progress');
      expect(queued).to.not.have.property('result');
      expect((await jobs.get(queued.id as string))!.status).to.equal('queued');

      const stillRunning = bodyOf(await poll(createFakeCall('video.generations.poll', { id: queued.id }, { jobs })));
      expect(stillRunning.status).to.equal('in_progress');

      await new Promise((resolve) => setTimeout(resolve, 2100 - (Date.now() - started)));
      const done = bodyOf(await poll(createFakeCall('video.generations.poll', { id: queued.id }, { jobs })));
      expect(done.status).to.equal('completed');
      expect(done.result).to.have.property('url');
      expect((await jobs.get(queued.id as string))!.status).to.equal('completed');
    });

    it('stops waiting when the client goes away', async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = Date.now();
      const result = await generate(createFakeCall('video.generations', { prompt: 'x', duration_seconds: 1 }, { signal: controller.signal }));
      expect(Date.now() - started).to.be.lessThan(800);
      expect(bodyOf(result).status).to.equal('in_progress');
    });
  });

  describe('#pollVideo', () => {
    it('answers 404 for unknown ids and for jobs of another owner', async () => {
      const jobs = new MemoryJobStore();
      const created = bodyOf(await generate(createFakeCall('video.generations', { prompt: 'x', duration_seconds: 1, max_wait_seconds: 1 }, { jobs })));
      await expectNotFound(poll(createFakeCall('video.generations.poll', { id: 'vid_missing' }, { jobs })));
      await expectNotFound(poll(createFakeCall('video.generations.poll', { id: created.id }, { jobs, owner: 'owner-b' })));
    });
  });
});
