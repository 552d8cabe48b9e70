import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { JobRecord, JobStore } from '../../src/providers/types.js';
import { createMemoryRecordStore } from '../../src/store/file-store.js';
import { createJobStore } from '../../src/store/job-store.js';
import { deletePrefix, failWhileDown, SHARED_REDIS } from './support/redis.js';
import { connectRedis, type RedisConnection } from '../../src/store/redis-connection.js';
import { SUSPECT_MS, createStoreGuard } from '../../src/store/redis-fallback.js';
import { createRedisRecordStore } from '../../src/store/redis-record-store.js';

function job(id: string, status: JobRecord['status']): JobRecord {
  return { id, owner: 'alice', provider: 'sandbox', model: 'sandbox-video', status, created_at: 1_700_000_000 };
}

describe('store/job-store on Redis through a Redis outage', () => {
  const prefix = `gwtest-jobs-${randomBytes(4).toString('hex')}:`;
  let conn: RedisConnection;
  let down = false;
  let flaky: JobStore;
  let other: JobStore;

  before(async () => {
    conn = connectRedis(`redis://127.0.0.1:6379/?prefix=${prefix}`);
    expect(await conn.ready(2000)).to.equal(true);
    // This instance's view of Redis fails every command while `down` is set.
    const client = failWhileDown(conn.client, () => down);
    flaky = createJobStore(createRedisRecordStore({ ...conn, client }, createStoreGuard('open'), 'job', createMemoryRecordStore(), 600));
    other = createJobStore(createRedisRecordStore(conn, createStoreGuard('open'), 'job', createMemoryRecordStore(), 600));
  });
  after(async () => {
    await deletePrefix(SHARED_REDIS, prefix);
    await conn.close();
  });

  it('writes jobs created and updated during the outage back to Redis when it returns', async () => {
    await flaky.save(job('video-aa01', 'queued'));
    down = true;
    await flaky.save(job('video-aa02', 'queued'));
    await flaky.save(job('video-aa02', 'in_progress'));
    await flaky.save(job('video-aa01', 'completed'));
    // Served from this instance's memory meanwhile; the other instance does not see the changes yet.
    expect((await flaky.get('video-aa02'))?.status).to.equal('in_progress');
    expect(await other.get('video-aa02')).to.equal(undefined);
    expect((await other.get('video-aa01'))?.status).to.equal('queued');
    down = false;
    // After a failure the guard skips Redis for SUSPECT_MS; the first call that reaches Redis
    // after that writes the journal back.
    await new Promise((r) => setTimeout(r, SUSPECT_MS + 50));
    await flaky.get('video-zz99');
    expect((await other.get('video-aa02'))?.status).to.equal('in_progress');
    expect((await other.get('video-aa01'))?.status).to.equal('completed');
    // Written back with the store's expiry, like any other job.
    expect(await conn.client.ttl(`${prefix}job:video-aa02`)).to.be.within(1, 600);
  });

  it('keeps a job saved after Redis returned over the older one journaled during the outage', async () => {
    down = true;
    await flaky.save(job('video-bb01', 'queued'));
    down = false;
    await new Promise((r) => setTimeout(r, SUSPECT_MS + 50));
    // The save itself reaches Redis: the journal goes first, then the newer record.
    await flaky.save(job('video-bb01', 'completed'));
    expect((await other.get('video-bb01'))?.status).to.equal('completed');
  });
});
