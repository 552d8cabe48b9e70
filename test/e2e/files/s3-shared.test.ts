import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import OpenAI, { NotFoundError, toFile } from 'openai';
import { makeWav } from '../../kit/providers/media-bytes.js';
import { startGateway, TEST_KEY, type TestGateway } from '../../helpers/gateway.js';
import { freshRedisStore, S3_CREDENTIALS, startTestS3, writeFilesProject, type TestS3 } from './support/s3-project.js';

const OTHER_KEY = 'other-key-0123456789';
const PREFIX = 'gateway/files/';

/**
 * Issue 12.4: two gateway instances on one Redis and one S3-compatible bucket (s3rver, a real
 * S3-protocol server started here). A file uploaded through one is read, listed, downloaded and
 * deleted through the other, with the official openai SDK; bytes sit in the bucket, not on
 * either instance's disk.
 */
describe('e2e/files/s3-shared', () => {
  let s3: TestS3;
  let redis: ReturnType<typeof freshRedisStore>;
  let project: Awaited<ReturnType<typeof writeFilesProject>>;
  let scratch: string;
  let a: TestGateway;
  let b: TestGateway;
  let sdkA: OpenAI;
  let sdkB: OpenAI;
  let other: OpenAI;

  before(async () => {
    s3 = await startTestS3();
    redis = freshRedisStore();
    scratch = await mkdtemp(join(tmpdir(), 'gw-s3-local-'));
    project = await writeFilesProject({ store: 's3', s3: { bucket: s3.bucket, endpoint: s3.endpoint, region: 'us-east-1', force_path_style: true, prefix: PREFIX } });
    const env = (n: number) => ({ GATEWAY_API_KEYS: `${TEST_KEY},${OTHER_KEY}`, GATEWAY_STORE_URL: redis.url, GATEWAY_REALTIME_SECRET: 'test-realtime-secret', GATEWAY_FILES_DIR: join(scratch, `instance-${n}`), ...S3_CREDENTIALS });
    [a, b] = await Promise.all([startGateway({ configPath: project.configPath, env: env(1) }), startGateway({ configPath: project.configPath, env: env(2) })]);
    sdkA = new OpenAI({ apiKey: TEST_KEY, baseURL: `${a.url}/v1`, maxRetries: 0 });
    sdkB = new OpenAI({ apiKey: TEST_KEY, baseURL: `${b.url}/v1`, maxRetries: 0 });
    other = new OpenAI({ apiKey: OTHER_KEY, baseURL: `${b.url}/v1`, maxRetries: 0 });
  });
  after(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await s3?.close();
    await redis?.close();
    await project?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  /** Files left on the instances' disks outside the upload temp folders (there should be none). */
  async function localBytes(): Promise<string[]> {
    const entries = await readdir(scratch, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  }

  it('uploads through A with the SDK, and B retrieves, downloads, lists and deletes it', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 5);
    const created = await sdkA.files.create({ file: await toFile(bytes, 'data.bin', { type: 'application/octet-stream' }), purpose: 'user_upload' as never });
    expect(created).to.include({ object: 'file', bytes: bytes.length, filename: 'data.bin', purpose: 'user_upload' });
    expect(created.id).to.match(/^file-[0-9a-f]+$/);

    // The bytes are in the bucket, intact (no aws-chunked framing), and on no instance's disk.
    expect((await s3.bytes(`${PREFIX}${created.id}`))!.equals(bytes)).to.equal(true);
    expect(await localBytes()).to.deep.equal([]);

    const retrieved = await sdkB.files.retrieve(created.id);
    expect(retrieved).to.deep.include({ id: created.id, bytes: bytes.length, filename: 'data.bin', created_at: created.created_at });

    const content = await sdkB.files.content(created.id);
    expect(content.headers.get('content-type')).to.equal('application/octet-stream');
    expect(Buffer.from(await content.arrayBuffer()).equals(bytes)).to.equal(true);

    const listed = await sdkB.files.list();
    expect(listed.data.map((f) => f.id)).to.include(created.id);

    const deleted = await sdkB.files.delete(created.id);
    expect(deleted).to.deep.equal({ id: created.id, object: 'file', deleted: true });
    expect(await s3.bytes(`${PREFIX}${created.id}`)).to.equal(undefined);
    try {
      await sdkA.files.retrieve(created.id);
      expect.fail('a deleted file must be 404');
    } catch (e) {
      expect(e).to.be.instanceOf(NotFoundError);
      expect((e as NotFoundError).code).to.equal('file_not_found');
    }
    expect((await sdkA.files.list()).data.map((f) => f.id)).to.not.include(created.id);
  });

  it('pages the list newest first with limit and after, across instances, as the SDK iterates it', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const sdk = i % 2 ? sdkA : sdkB;
      ids.push((await sdk.files.create({ file: await toFile(Buffer.from(`file ${i}`), `f${i}.txt`), purpose: 'user_upload' as never })).id);
    }
    const page = await sdkA.files.list({ limit: 2 });
    expect(page.data.map((f) => f.id)).to.deep.equal([ids[4], ids[3]]);
    expect(page.has_more).to.equal(true);
    const raw = await fetch(`${b.url}/v1/files?limit=2&after=${ids[3]}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
    const body = await raw.json() as { object: string; data: Array<{ id: string }>; has_more: boolean; last_id: string };
    expect(body).to.include({ object: 'list', has_more: true, last_id: ids[1] });
    expect(body.data.map((f) => f.id)).to.deep.equal([ids[2], ids[1]]);
    // The SDK's auto-pagination follows `after` to the end.
    const seen: string[] = [];
    for await (const f of sdkB.files.list({ limit: 2 })) seen.push(f.id);
    expect(seen.slice(0, 5)).to.deep.equal([...ids].reverse());
    const asc = await sdkA.files.list({ limit: 5, order: 'asc' });
    expect(asc.data.map((f) => f.id)).to.deep.equal(ids);
    for (const id of ids) await sdkA.files.delete(id);
  });

  it('keeps every key to its own files: another key gets 404 and an empty list', async () => {
    const mine = await sdkA.files.create({ file: await toFile(Buffer.from('secret'), 's.txt'), purpose: 'user_upload' as never });
    for (const call of [() => other.files.retrieve(mine.id), () => other.files.delete(mine.id), () => other.files.content(mine.id)]) {
      try {
        await call();
        expect.fail('another key must get 404');
      } catch (e) {
        expect(e).to.be.instanceOf(NotFoundError);
      }
    }
    expect((await other.files.list()).data).to.deep.equal([]);
    expect((await sdkB.files.retrieve(mine.id)).id).to.equal(mine.id);
    await sdkB.files.delete(mine.id);
  });

  it('answers 400 for a bad limit or an unknown after cursor, 404 for an unknown id', async () => {
    for (const query of ['limit=0', 'limit=abc', 'limit=10001', 'order=sideways', 'after=file-0000']) {
      const res = await fetch(`${a.url}/v1/files?${query}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
      expect(res.status, query).to.equal(400);
    }
    for (const [method, path] of [['GET', '/v1/files/file-abc'], ['DELETE', '/v1/files/file-abc'], ['GET', '/v1/files/nonsense/content']]) {
      const res = await fetch(`${a.url}${path}`, { method, headers: { authorization: `Bearer ${TEST_KEY}` } });
      expect(res.status, path).to.equal(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('file_not_found');
    }
  });

  it('feeds a file uploaded through A to a transcription through B, read back from the bucket', async () => {
    const wav = makeWav(8000);
    const up = await sdkA.files.create({ file: await toFile(wav, 'talk.wav', { type: 'audio/wav' }), purpose: 'user_upload' as never });
    const res = await fetch(`${b.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sandbox/transcribe-1', file_id: up.id }),
    });
    expect(res.status).to.equal(200);
    expect(((await res.json()) as { duration_seconds: number }).duration_seconds).to.be.greaterThan(0);
    await sdkA.files.delete(up.id);
  });

  it('stores a JSON (base64) upload in the bucket too', async () => {
    const bytes = randomBytes(1000);
    const res = await fetch(`${b.url}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      // The declared type wins over what the name suggests.
      body: JSON.stringify({ content_base64: bytes.toString('base64'), filename: 'x.txt', mime_type: 'application/pdf' }),
    });
    const id = ((await res.json()) as { id: string }).id;
    expect((await s3.bytes(`${PREFIX}${id}`))!.equals(bytes)).to.equal(true);
    const content = await sdkA.files.content(id);
    expect(Buffer.from(await content.arrayBuffer()).equals(bytes)).to.equal(true);
    expect(content.headers.get('content-type')).to.equal('application/pdf');
    expect(content.headers.get('content-disposition')).to.equal('attachment; filename="x.txt"');
    await sdkA.files.delete(id);
  });

  describe('retention (files.ttl_days)', () => {
    let ttlProject: Awaited<ReturnType<typeof writeFilesProject>>;
    let ttlRedis: ReturnType<typeof freshRedisStore>;
    let c: TestGateway;
    let d: TestGateway;

    before(async () => {
      ttlRedis = freshRedisStore();
      // 0.00003 days is 2.6 s; each instance sweeps every second.
      ttlProject = await writeFilesProject({ store: 's3', ttl_days: 0.00003, sweep_interval_seconds: 1, s3: { bucket: s3.bucket, endpoint: s3.endpoint, force_path_style: true, prefix: 'ttl/', access_key_env: 'MY_S3_KEY', secret_key_env: 'MY_S3_SECRET' } });
      const env = { GATEWAY_STORE_URL: ttlRedis.url, GATEWAY_REALTIME_SECRET: 'test-realtime-secret', GATEWAY_FILES_DIR: join(scratch, 'ttl'), MY_S3_KEY: 'S3RVER', MY_S3_SECRET: 'S3RVER' };
      [c, d] = await Promise.all([startGateway({ configPath: ttlProject.configPath, env }), startGateway({ configPath: ttlProject.configPath, env })]);
    });
    after(async () => {
      await Promise.all([c?.close(), d?.close()]);
      await ttlRedis?.close();
      await ttlProject?.close();
    });

    it('answers expires_at, then 404 once expired, and the sweep empties the bucket without any read', async () => {
      // Bytes whose record was lost (e.g. a crash between the two writes) and an object the
      // gateway did not write, under the same prefix.
      await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'ttl/file-0123abcd', Body: 'orphan' }));
      await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'ttl/notes.txt', Body: 'not ours' }));
      const sdk = new OpenAI({ apiKey: TEST_KEY, baseURL: `${c.url}/v1`, maxRetries: 0 });
      const f = await sdk.files.create({ file: await toFile(Buffer.from('short-lived'), 'tmp.txt'), purpose: 'user_upload' as never });
      expect(f.expires_at).to.equal(f.created_at + 3);
      expect(await s3.keys('ttl/')).to.have.members([`ttl/${f.id}`, 'ttl/file-0123abcd', 'ttl/notes.txt']);
      // Nobody reads it: the sweep of one of the instances deletes bytes and record.
      let keys = await s3.keys('ttl/');
      for (let i = 0; i < 100 && keys.length > 1; i += 1) {
        await new Promise((r) => setTimeout(r, 100));
        keys = await s3.keys('ttl/');
      }
      expect(keys).to.deep.equal(['ttl/notes.txt']);
      const res = await fetch(`${d.url}/v1/files/${f.id}`, { headers: { authorization: `Bearer ${TEST_KEY}` } });
      expect(res.status).to.equal(404);
      expect((await sdk.files.list()).data).to.deep.equal([]);
    });
  });
});
