import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createMemoryRateLimiter } from '../../src/store/rate-limiter.js';
import { connectRedis, type RedisConnection } from '../../src/store/redis-connection.js';
import { createStoreGuard } from '../../src/store/redis-fallback.js';
import { createRedisRateLimiter } from '../../src/store/redis-rate-limiter.js';
import { createRedisSpendLedger } from '../../src/store/redis-spend-ledger.js';
import { createMemoryResponseStore } from '../../src/store/response-store-memory.js';
import { createRedisResponseStore } from '../../src/store/response-store-redis.js';
import { DEFAULT_RESPONSE_STORE_LIMITS, type StoredResponse } from '../../src/store/response-store.js';
import { createFleet, readFleet } from '../../src/fleet/fleet.js';
import { storeKindName } from '../../src/store/redis-url.js';
import { startRedisCluster, startSentinel, startTlsRedis, type RedisTopology } from './support/redis-topologies.js';
import { freePort } from '../helpers/free-port.js';
import { awayFromMinuteEdge, post } from '../e2e/budget/support/client.js';
import { spawnGateway } from '../e2e/budget/support/process.js';
import { newKey, writeProject, type TestKey } from '../e2e/budget/support/project.js';

/** Budgets, holds, limits and the fleet over one connection: what every topology must carry. */
async function exerciseStore(conn: RedisConnection): Promise<void> {
  const guard = createStoreGuard('closed', undefined, conn);
  const ledger = createRedisSpendLedger(conn, guard);
  const limiter = createRedisRateLimiter(conn, guard, createMemoryRateLimiter());
  try {
    // Many owners: on a cluster their keys land on every master, each script on one slot.
    for (let o = 0; o < 12; o++) {
      const owner = `owner${o}`;
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => ledger.reserve(`${owner}:day:d1`, 100, 300, 3600, `${owner}-h${i}`)));
      expect(results.filter((r) => r.ok)).to.have.length(3);
      await ledger.settle([{ account: `${owner}:day:d1`, reservedNano: 100, ttlSeconds: 3600 }, { account: `${owner}:total`, reservedNano: 0, ttlSeconds: 0 }], 40, `${owner}-h0`);
      await ledger.settle([{ account: `${owner}:day:d1`, reservedNano: 100, ttlSeconds: 3600 }, { account: `${owner}:total`, reservedNano: 0, ttlSeconds: 0 }], 40, `${owner}-h0`);
      expect(await ledger.read(`${owner}:day:d1`)).to.deep.equal({ usedNano: 240, spentNano: 40, requests: 1 });
      expect((await ledger.read(`${owner}:total`)).spentNano).to.equal(40);
      const hits = await Promise.all(Array.from({ length: 5 }, () => limiter.hit(`rpm:${owner}`, 3, 60)));
      expect(hits.filter((h) => h.allowed)).to.have.length(3);
    }
    // Stored responses: a response and its items are written in one MULTI and read with MGET,
    // so every key of one owner must share a slot (closed guard: no silent fallback to memory).
    const responses = createRedisResponseStore(conn, guard, DEFAULT_RESPONSE_STORE_LIMITS, createMemoryResponseStore(DEFAULT_RESPONSE_STORE_LIMITS));
    for (let o = 0; o < 6; o++) {
      const stored: StoredResponse = { id: `resp_${o}`, input: [{ id: `msg_in_${o}`, type: 'message' }], response: { id: `resp_${o}`, output: [{ id: `msg_out_${o}`, type: 'message' }] } };
      expect(await responses.save(`owner${o}`, stored)).to.equal(true);
      expect(await responses.load(`owner${o}`, `resp_${o}`)).to.deep.equal(stored);
      const items = await responses.loadItems(`owner${o}`, [`msg_in_${o}`, `msg_out_${o}`, 'msg_unknown']);
      expect([...items.keys()]).to.deep.equal([`msg_in_${o}`, `msg_out_${o}`]);
      expect(await responses.load(`owner${(o + 1) % 6}`, `resp_${o}`), "another owner's id").to.equal(undefined);
    }
    const fleet = createFleet({ conn, configHash: () => 'abc', instanceId: 'node-a', storeKind: storeKindName(conn.kind) });
    await fleet.beat();
    expect((await readFleet(conn)).map((m) => m.instance_id)).to.include('node-a');
    expect(await fleet.describe()).to.deep.include({ config_hash: 'abc', instance_id: 'node-a', store: { kind: storeKindName(conn.kind), healthy: true } });
    await fleet.close();
  } finally {
    await ledger.close();
  }
}

describe('store on Redis Cluster, TLS and Sentinel (servers started by this test)', function () {
  this.timeout(60_000);

  describe('redis-cluster:// (3 masters)', () => {
    let cluster: RedisTopology;
    let conn: RedisConnection;
    before(async () => {
      cluster = await startRedisCluster();
      conn = connectRedis(`${cluster.url}?prefix=gwc:`);
      expect(await conn.ready(10_000)).to.equal(true);
    });
    after(async () => {
      await conn?.close();
      await cluster?.stop();
    });

    it('reserves, settles, limits and heartbeats across slots owned by different masters', async () => {
      expect(conn.kind).to.equal('cluster');
      expect(storeKindName(conn.kind), 'as /readyz and gateway status name it').to.equal('redis-cluster');
      await exerciseStore(conn);
      // The owners' keys really are spread over the masters (MOVED was followed, not refused).
      const counts = await Promise.all(cluster.ports.map(async (port) => {
        const c = new Redis({ port, host: '127.0.0.1' });
        const n = (await c.keys('gwc:*')).length;
        c.disconnect();
        return n;
      }));
      expect(counts.filter((n) => n > 0).length).to.be.greaterThan(1);
    });

    it('serves two gateway processes on the cluster URL with one budget and one rpm limit', async () => {
      const key: TestKey = { key: newKey('cl'), name: 'cl', budget: { usd: 0.05, period: 'total' } };
      const limited: TestKey = { key: newKey('cl-rpm'), name: 'cl-rpm', rpm: 3 };
      const store = { url: `${cluster.url}?prefix=gwe:`, on_error: 'closed' as const };
      const ports = [await freePort(), await freePort()];
      const gws = await Promise.all(ports.map((port) => spawnGateway(writeProject({ keys: [key, limited], store, port }), port, key.key)));
      try {
        // Five images fit the budget, whichever instance takes them.
        const images = await Promise.all(Array.from({ length: 8 }, (_, i) => post(`${gws[i % 2]!.url}/v1/images/generations`, key.key, { model: 'sandbox/image-1', prompt: 'a cat' })));
        expect(images.map((r) => r.status).sort()).to.deep.equal([200, 200, 200, 200, 200, 402, 402, 402]);
        await awayFromMinuteEdge();
        const more = await Promise.all(Array.from({ length: 4 }, (_, i) => post(`${gws[i % 2]!.url}/v1/embeddings`, limited.key, { model: 'sandbox/embed-1', input: 'hi' })));
        expect(more.map((r) => r.status).sort()).to.deep.equal([200, 200, 200, 429]);
      } finally {
        await Promise.all(gws.map((g) => g.stop()));
      }
    });
  });

  describe('rediss:// with a private CA', () => {
    let tls: RedisTopology & { caFile: string };
    before(async () => { tls = await startTlsRedis(); });
    after(async () => { await tls?.stop(); });

    it('connects with store.tls.ca_file and carries the store', async () => {
      const conn = connectRedis(`${tls.url}?prefix=gwt:`, undefined, { ca_file: tls.caFile });
      try {
        expect(await conn.ready(10_000)).to.equal(true);
        await exerciseStore(conn);
      } finally {
        await conn.close();
      }
    });

    it('refuses a server whose certificate no configured CA signed', async () => {
      const errors: string[] = [];
      const conn = connectRedis(tls.url, (m) => errors.push(m));
      try {
        expect(await conn.ready(1500)).to.equal(false);
        expect(errors.join(' ')).to.match(/certificate/i);
      } finally {
        await conn.close();
      }
    });
  });

  describe('redis+sentinel:// (master found through Sentinel, with a password)', () => {
    let sentinel: RedisTopology;
    before(async () => { sentinel = await startSentinel('s3cret-pass'); });
    after(async () => { await sentinel?.stop(); });

    it('connects to the master Sentinel names and carries the store', async () => {
      const conn = connectRedis(`${sentinel.url}?prefix=gws:`);
      try {
        expect(conn.kind).to.equal('sentinel');
        expect(storeKindName(conn.kind), 'as /readyz and gateway status name it').to.equal('redis-sentinel');
        expect(await conn.ready(10_000)).to.equal(true);
        await exerciseStore(conn);
      } finally {
        await conn.close();
      }
    });
  });
});
