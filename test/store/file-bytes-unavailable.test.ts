import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { createFileServices, type FileServices } from '../../src/store/file-services.js';
import { connectRedis, type RedisConnection } from '../../src/store/redis-connection.js';
import { createStoreGuard } from '../../src/store/redis-fallback.js';
import { deletePrefix, SHARED_REDIS, uniquePrefix } from './support/redis.js';

/** A logger whose JSON lines land in `lines`. */
function capturingLogger(lines: Array<Record<string, unknown>>) {
  return pino({ level: 'info' }, new Writable({ write(chunk: Buffer, _enc, done) { lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>); done(); } }));
}

describe('store/file-services: records in Redis, bytes on each instance\'s own disk (shared Redis, own prefix)', () => {
  const prefix = uniquePrefix('file-bytes');
  let conn: RedisConnection;
  let dirA = '';
  let dirB = '';
  const logB: Array<Record<string, unknown>> = [];
  let a: FileServices;
  let b: FileServices;
  before(async () => {
    conn = connectRedis(`${SHARED_REDIS}/?prefix=${prefix}`);
    expect(await conn.ready(2000)).to.equal(true);
    dirA = await mkdtemp(join(tmpdir(), 'gw-files-a-'));
    dirB = await mkdtemp(join(tmpdir(), 'gw-files-b-'));
    const guard = createStoreGuard('open', undefined, conn);
    a = createFileServices({ dir: dirA, store: 'local' }, capturingLogger([]), { redis: { conn, guard } });
    b = createFileServices({ dir: dirB, store: 'local' }, capturingLogger(logB), { redis: { conn, guard } });
  });
  after(async () => {
    a.close();
    b.close();
    await deletePrefix(SHARED_REDIS, prefix);
    await conn.close();
    await rm(dirA, { recursive: true, force: true });
    await rm(dirB, { recursive: true, force: true });
  });

  it('answers 502 file_bytes_unavailable where the record is but the bytes are not, and logs the file id and the directory searched', async () => {
    const record = await a.files.put({ filename: 'a.txt', mime_type: 'text/plain', purpose: 'user_upload', provider: 'sandbox', owner: 'alice' }, new TextEncoder().encode('hello'));
    expect(Buffer.from((await a.files.read(record.id, 'alice'))!).toString()).to.equal('hello');
    expect((await b.files.get(record.id, 'alice'))?.id, 'the record is shared').to.equal(record.id);
    for (const attempt of [() => b.files.read(record.id, 'alice'), () => b.files.open(record.id, 'alice')]) {
      const e = await attempt().then(() => undefined, (x: unknown) => x);
      expect(isGatewayError(e) && { status: e.status, code: e.code }).to.deep.equal({ status: 502, code: 'file_bytes_unavailable' });
    }
    const logged = logB.filter((l) => l.level === 50);
    expect(logged).to.have.length(2);
    expect(logged[0]).to.deep.include({ file_id: record.id, files_dir: dirB });
    expect(String(logged[0]!.msg)).to.include('files.dir');
    // Another key's file, or an unknown id, is still simply missing.
    expect(await b.files.read(record.id, 'bob')).to.equal(undefined);
    expect(await b.files.read('file-000000000000000000000000', 'alice')).to.equal(undefined);
  });
});
