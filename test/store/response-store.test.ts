/**
 * One contract for every ResponseStore implementation, run against memory and real Redis
 * (127.0.0.1:6379, unique key prefix): per-owner isolation, item lookup, TTL and size bounds.
 */
import { expect } from 'chai';
import { connectRedis, type RedisConnection } from '../../src/store/redis-connection.js';
import { createStoreGuard } from '../../src/store/redis-fallback.js';
import { createMemoryResponseStore } from '../../src/store/response-store-memory.js';
import { createRedisResponseStore } from '../../src/store/response-store-redis.js';
import type { ResponseStore, ResponseStoreLimits, StoredResponse } from '../../src/store/response-store.js';
import { deletePrefix, SHARED_REDIS, uniquePrefix } from './support/redis.js';

const LIMITS: ResponseStoreLimits = { ttlSeconds: 60, maxBytes: 4096, maxTotalBytes: 1_000_000 };

function makeStored(id: string, text = 'hello'): StoredResponse {
  return {
    id,
    input: [{ id: `msg_in_${id}`, type: 'message', role: 'user', content: text }],
    response: {
      id, object: 'response', status: 'completed',
      output: [
        { id: `rs_${id}`, type: 'reasoning', summary: [] },
        { id: `msg_${id}`, type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Echo: ${text}` }] },
      ],
    },
  };
}

/** The contract; `make` builds a fresh store with the given limits. */
function runContract(name: string, make: (limits: ResponseStoreLimits) => ResponseStore): void {
  describe(`ResponseStore contract: ${name}`, () => {
    it('loads what was saved, for its owner only', async () => {
      const store = make(LIMITS);
      expect(await store.save('owner-a', makeStored('resp_1'))).to.equal(true);
      expect(await store.load('owner-a', 'resp_1')).to.deep.equal(makeStored('resp_1'));
      expect(await store.load('owner-b', 'resp_1'), 'another key never reads it').to.equal(undefined);
      expect(await store.load('owner-a', 'resp_unknown')).to.equal(undefined);
    });

    it('finds input and output items by id, per owner', async () => {
      const store = make(LIMITS);
      await store.save('owner-a', makeStored('resp_2', 'two'));
      const items = await store.loadItems('owner-a', ['msg_resp_2', 'msg_in_resp_2', 'rs_resp_2', 'nope']);
      expect([...items.keys()].sort()).to.deep.equal(['msg_in_resp_2', 'msg_resp_2', 'rs_resp_2']);
      expect(items.get('msg_resp_2')).to.deep.include({ type: 'message', role: 'assistant' });
      expect((await store.loadItems('owner-b', ['msg_resp_2'])).size).to.equal(0);
    });

    it('refuses a response bigger than max_bytes and keeps nothing of it', async () => {
      const store = make(LIMITS);
      expect(await store.save('owner-a', makeStored('resp_big', 'x'.repeat(5000)))).to.equal(false);
      expect(await store.load('owner-a', 'resp_big')).to.equal(undefined);
      expect((await store.loadItems('owner-a', ['msg_resp_big'])).size).to.equal(0);
    });

    it('forgets responses after ttl_s', async function () {
      this.timeout(5000);
      const store = make({ ...LIMITS, ttlSeconds: 1 });
      await store.save('owner-a', makeStored('resp_ttl'));
      expect(await store.load('owner-a', 'resp_ttl')).to.not.equal(undefined);
      await new Promise((r) => setTimeout(r, 1100));
      expect(await store.load('owner-a', 'resp_ttl')).to.equal(undefined);
      expect((await store.loadItems('owner-a', ['msg_resp_ttl'])).size).to.equal(0);
    });
  });
}

runContract('memory', (limits) => createMemoryResponseStore(limits));

describe('ResponseStore on Redis (127.0.0.1:6379)', () => {
  const prefix = uniquePrefix('responses');
  let conn: RedisConnection;
  let n = 0;
  before(async () => {
    conn = connectRedis(`${SHARED_REDIS}?prefix=${encodeURIComponent(prefix)}`);
    expect(await conn.ready(5000)).to.equal(true);
  });
  after(async () => {
    await conn.close();
    await deletePrefix(SHARED_REDIS, prefix);
  });
  // Each store gets its own sub-prefix so contract cases never see each other's keys.
  runContract('redis', (limits) => createRedisResponseStore(
    { ...conn, prefix: `${prefix}${n++}:` },
    createStoreGuard('closed'), limits, createMemoryResponseStore(limits),
  ));

  it('is shared: a response saved through one connection is read through another', async () => {
    const other = connectRedis(`${SHARED_REDIS}?prefix=${encodeURIComponent(prefix)}`);
    try {
      expect(await other.ready(5000)).to.equal(true);
      const a = createRedisResponseStore(conn, createStoreGuard('closed'), LIMITS, createMemoryResponseStore(LIMITS));
      const b = createRedisResponseStore(other, createStoreGuard('closed'), LIMITS, createMemoryResponseStore(LIMITS));
      await a.save('owner-a', makeStored('resp_shared'));
      expect((await b.load('owner-a', 'resp_shared'))?.response.status).to.equal('completed');
      expect((await b.loadItems('owner-a', ['msg_resp_shared'])).has('msg_resp_shared')).to.equal(true);
    } finally {
      await other.close();
    }
  });
});

describe('memory ResponseStore bound', () => {
  it('evicts the oldest responses past max_total_bytes', async () => {
    const one = JSON.stringify(makeStored('resp_a')).length;
    const store = createMemoryResponseStore({ ...LIMITS, maxTotalBytes: one * 2 + 10 });
    for (const id of ['resp_a', 'resp_b', 'resp_c']) await store.save('o', makeStored(id));
    expect(await store.load('o', 'resp_a')).to.equal(undefined);
    expect(await store.load('o', 'resp_c')).to.not.equal(undefined);
    expect((await store.loadItems('o', ['msg_resp_a'])).size).to.equal(0);
  });
});
