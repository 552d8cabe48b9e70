import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FileRecord } from '../../src/providers/types.js';
import { createLocalBlobStore } from '../../src/store/blob-store.js';
import { createMemoryFileIndex, type FileIndex } from '../../src/store/file-index.js';
import { createFileStore } from '../../src/store/file-store.js';
import { deletePrefix, SHARED_REDIS } from './support/redis.js';
import { useRedisOutage, waitOutSuspect } from './support/redis-outage.js';
import { connectRedis, type RedisConnection } from '../../src/store/redis-connection.js';
import { createStoreGuard } from '../../src/store/redis-fallback.js';
import { createRedisFileIndex } from '../../src/store/redis-file-index.js';

function record(id: string, owner: string, ms: number): FileRecord {
  return { id, object: 'file', bytes: 1, created_at: Math.floor(ms / 1000), created_ms: ms, filename: 'a', mime_type: 'text/plain', purpose: 'user_upload', provider: 'sandbox', owner };
}

/** One contract, run against the memory index and the Redis index. */
function describeIndexContract(name: string, make: () => Promise<{ index: FileIndex; close(): Promise<void> }>): void {
  describe(name, () => {
    let index: FileIndex;
    let close: () => Promise<void>;
    beforeEach(async () => ({ index, close } = await make()));
    afterEach(async () => close());

    it('lists an owner\'s files newest first, in pages that follow `after`', async () => {
      for (let i = 1; i <= 5; i += 1) await index.put(record(`file-a${i}`, 'alice', 1000 * i));
      await index.put(record('file-b1', 'bob', 3500));
      const first = await index.page('alice', { limit: 2, order: 'desc' });
      expect(first!.records.map((r) => r.id)).to.deep.equal(['file-a5', 'file-a4']);
      expect(first!.hasMore).to.equal(true);
      const second = await index.page('alice', { limit: 2, order: 'desc', after: 'file-a4' });
      expect(second!.records.map((r) => r.id)).to.deep.equal(['file-a3', 'file-a2']);
      const last = await index.page('alice', { limit: 2, order: 'desc', after: 'file-a2' });
      expect(last!.records.map((r) => r.id)).to.deep.equal(['file-a1']);
      expect(last!.hasMore).to.equal(false);
      const asc = await index.page('alice', { limit: 10, order: 'asc' });
      expect(asc!.records.map((r) => r.id)).to.deep.equal(['file-a1', 'file-a2', 'file-a3', 'file-a4', 'file-a5']);
    });

    it('answers undefined for an `after` that is not the owner\'s', async () => {
      await index.put(record('file-a1', 'alice', 1000));
      await index.put(record('file-b1', 'bob', 1000));
      expect(await index.page('alice', { limit: 2, order: 'desc', after: 'file-b1' })).to.equal(undefined);
    });

    it('deletes a record from every order', async () => {
      await index.put(record('file-a1', 'alice', 1000));
      await index.put(record('file-a2', 'alice', 2000));
      await index.delete('file-a1');
      expect(await index.get('file-a1')).to.equal(undefined);
      expect((await index.page('alice', { limit: 10, order: 'desc' }))!.records.map((r) => r.id)).to.deep.equal(['file-a2']);
      expect(await index.createdBefore(10_000, 10)).to.deep.equal(['file-a2']);
    });

    it('finds ids created before a time, oldest first, across owners', async () => {
      await index.put(record('file-a1', 'alice', 1000));
      await index.put(record('file-b1', 'bob', 2000));
      await index.put(record('file-a2', 'alice', 3000));
      expect(await index.createdBefore(3000, 10)).to.deep.equal(['file-a1', 'file-b1']);
      expect(await index.createdBefore(3000, 1)).to.deep.equal(['file-a1']);
    });
  });
}

describe('store/file-index', () => {
  describeIndexContract('memory', async () => ({ index: createMemoryFileIndex(), close: async () => undefined }));
  describeIndexContract('redis', async () => {
    const prefix = `gwtest-files-${randomBytes(4).toString('hex')}:`;
    const conn: RedisConnection = connectRedis(`redis://127.0.0.1:6379/?prefix=${prefix}`);
    await conn.ready(2000);
    const index = createRedisFileIndex(conn, createStoreGuard('closed'), createMemoryFileIndex());
    return {
      index,
      async close() {
        await deletePrefix(SHARED_REDIS, prefix);
        await conn.close();
      },
    };
  });
});

describe('store/redis-file-index through a Redis outage', () => {
  const redis = useRedisOutage('file-outage');
  let flaky: FileIndex;
  let other: FileIndex;

  before(() => {
    flaky = createRedisFileIndex(redis.flaky, createStoreGuard('open'), createMemoryFileIndex());
    other = createRedisFileIndex(redis.conn, createStoreGuard('open'), createMemoryFileIndex());
  });

  it('writes uploads and deletes made during the outage back to Redis when it returns', async () => {
    await flaky.put(record('file-aa01', 'alice', 1000));
    redis.down = true;
    await flaky.put(record('file-aa02', 'alice', 2000));
    await flaky.delete('file-aa01', 'alice');
    // Served from this instance's memory meanwhile; the other instance does not see it yet.
    expect((await flaky.get('file-aa02'))?.id).to.equal('file-aa02');
    expect(await other.get('file-aa02')).to.equal(undefined);
    expect((await other.get('file-aa01'))?.id).to.equal('file-aa01');
    redis.down = false;
    await waitOutSuspect();
    await flaky.get('file-zz99');
    expect((await other.get('file-aa02'))?.id).to.equal('file-aa02');
    expect(await other.get('file-aa01')).to.equal(undefined);
    expect((await other.page('alice', { limit: 10, order: 'desc' }))!.records.map((r) => r.id)).to.deep.equal(['file-aa02']);
  });
});

describe('store/file-store', () => {
  let dir: string;
  let clock: number;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gw-filestore-'));
    clock = Date.now();
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const meta = (owner: string) => ({ filename: 'a.txt', mime_type: 'text/plain', purpose: 'user_upload', provider: 'sandbox', owner });

  describe('retention (files.ttl_days)', () => {
    it('sets expires_at, hides an expired file on read and deletes its bytes', async () => {
      const files = createFileStore(createLocalBlobStore(dir), createMemoryFileIndex(), { ttlSeconds: 60, now: () => clock });
      const rec = await files.put(meta('alice'), new Uint8Array([1, 2, 3]));
      expect(rec.expires_at).to.equal(rec.created_at + 60);
      clock += 59_000;
      expect(await files.read(rec.id, 'alice')).to.deep.equal(new Uint8Array([1, 2, 3]));
      clock += 1_000;
      expect(await files.get(rec.id, 'alice')).to.equal(undefined);
      expect(await readdir(dir)).to.deep.equal([]);
    });

    it('sweeps every expired file (bytes and record) and keeps the young ones', async () => {
      const index = createMemoryFileIndex();
      const files = createFileStore(createLocalBlobStore(dir), index, { ttlSeconds: 60, now: () => clock });
      const old = await Promise.all(Array.from({ length: 150 }, (_, i) => files.put(meta(i % 2 ? 'alice' : 'bob'), new Uint8Array([i]))));
      clock += 30_000;
      const young = await files.put(meta('alice'), new Uint8Array([9]));
      // The bytes' own write time follows the test clock too (the sweep also reads it).
      await utimes(join(dir, young.id), clock / 1000, clock / 1000);
      clock += 31_000;
      expect(await files.sweep()).to.equal(150);
      expect(await readdir(dir)).to.deep.equal([young.id]);
      expect(await index.get(old[0]!.id)).to.equal(undefined);
      expect((await files.list('alice', { limit: 100, order: 'desc' }))!.data.map((r) => r.id)).to.deep.equal([young.id]);
    });

    it('deletes bytes past retention whose record is gone (records lost with a restarted memory store)', async () => {
      const blobs = createLocalBlobStore(dir);
      const before = createFileStore(blobs, createMemoryFileIndex(), { ttlSeconds: 60, now: () => clock });
      const lost = await before.put(meta('alice'), new Uint8Array([1]));
      await utimes(join(dir, lost.id), clock / 1000, clock / 1000);
      const after = createFileStore(blobs, createMemoryFileIndex(), { ttlSeconds: 60, now: () => clock });
      clock += 59_000;
      expect(await after.sweep()).to.equal(0);
      expect(await readdir(dir)).to.deep.equal([lost.id]);
      clock += 2_000;
      expect(await after.sweep()).to.equal(1);
      expect(await readdir(dir)).to.deep.equal([]);
    });

    it('keeps everything without retention', async () => {
      const files = createFileStore(createLocalBlobStore(dir), createMemoryFileIndex(), { ttlSeconds: 0, now: () => clock });
      const rec = await files.put(meta('alice'), new Uint8Array([1]));
      expect(rec).to.not.have.property('expires_at');
      clock += 10 * 365 * 86_400_000;
      expect(await files.sweep()).to.equal(0);
      expect(await files.get(rec.id, 'alice')).to.not.equal(undefined);
    });
  });

  describe('#put', () => {
    it('keeps nothing when the client went away while the bytes were stored', async () => {
      const index = createMemoryFileIndex();
      const files = createFileStore(createLocalBlobStore(dir), index, { ttlSeconds: 0 });
      const gone = new AbortController();
      gone.abort();
      let failed = false;
      await files.put(meta('alice'), new Uint8Array([1, 2]), gone.signal).catch(() => { failed = true; });
      expect(failed).to.equal(true);
      expect(await readdir(dir)).to.deep.equal([]);
      expect((await files.list('alice', { limit: 10, order: 'desc' }))!.data).to.deep.equal([]);
    });
  });

  describe('#delete', () => {
    it('deletes only the owner\'s file', async () => {
      const files = createFileStore(createLocalBlobStore(dir), createMemoryFileIndex(), { ttlSeconds: 0 });
      const rec = await files.put(meta('alice'), new Uint8Array([1]));
      expect(await files.delete(rec.id, 'bob')).to.equal(false);
      expect(await files.delete(rec.id, 'alice')).to.equal(true);
      expect(await files.delete(rec.id, 'alice')).to.equal(false);
      expect(await readdir(dir)).to.deep.equal([]);
    });
  });
});
