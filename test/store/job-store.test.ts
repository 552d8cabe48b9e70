import { expect } from 'chai';
import type { JobRecord, JobStore } from '../../src/providers/types.js';
import { createMemoryRecordStore } from '../../src/store/file-store.js';
import { createJobStore } from '../../src/store/job-store.js';
import { createStoreGuard } from '../../src/store/redis-fallback.js';
import { createRedisRecordStore } from '../../src/store/redis-record-store.js';
import { useRedisOutage, waitOutSuspect } from './support/redis-outage.js';

function job(id: string, status: JobRecord['status']): JobRecord {
  return { id, owner: 'alice', provider: 'sandbox', model: 'sandbox-video', status, created_at: 1_700_000_000 };
}

describe('store/job-store on Redis through a Redis outage', () => {
  const redis = useRedisOutage('job-outage');
  let flaky: JobStore;
  let other: JobStore;

  before(() => {
    flaky = createJobStore(createRedisRecordStore(redis.flaky, createStoreGuard('open'), 'job', createMemoryRecordStore(), 600));
    other = createJobStore(createRedisRecordStore(redis.conn, createStoreGuard('open'), 'job', createMemoryRecordStore(), 600));
  });

  it('writes jobs created and updated during the outage back to Redis when it returns', async () => {
    await flaky.save(job('video-aa01', 'queued'));
    redis.down = true;
    await flaky.save(job('video-aa02', 'queued'));
    await flaky.save(job('video-aa02', 'in_progress'));
    await flaky.save(job('video-aa01', 'completed'));
    // Served from this instance's memory meanwhile; the other instance does not see the changes yet.
    expect((await flaky.get('video-aa02'))?.status).to.equal('in_progress');
    expect(await other.get('video-aa02')).to.equal(undefined);
    expect((await other.get('video-aa01'))?.status).to.equal('queued');
    redis.down = false;
    await waitOutSuspect();
    await flaky.get('video-zz99');
    expect((await other.get('video-aa02'))?.status).to.equal('in_progress');
    expect((await other.get('video-aa01'))?.status).to.equal('completed');
    // Written back with the store's expiry, like any other job.
    expect(await redis.conn.client.ttl(`${redis.prefix}job:video-aa02`)).to.be.within(1, 600);
  });

  it('keeps a job saved after Redis returned over the older one journaled during the outage', async () => {
    redis.down = true;
    await flaky.save(job('video-bb01', 'queued'));
    redis.down = false;
    await waitOutSuspect();
    // The save itself reaches Redis: the journal goes first, then the newer record.
    await flaky.save(job('video-bb01', 'completed'));
    expect((await other.get('video-bb01'))?.status).to.equal('completed');
  });
});
