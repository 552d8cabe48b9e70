import { expect } from 'chai';
import { createFleet, CATCH_UP_INTERVAL_MS, type Fleet } from '../../src/fleet/fleet.js';
import { connectRedis, type RedisConnection } from '../../src/store/redis-connection.js';
import { deletePrefix, SHARED_REDIS, uniquePrefix, waitFor } from '../store/support/redis.js';

const TTL_MS = 1500;
const INTERVAL_MS = 400;

describe('fleet: the end of an outage (shared Redis, own prefix)', () => {
  const prefix = uniquePrefix('fleet-catch-up');
  let conn: RedisConnection;
  const fleets: Fleet[] = [];
  const fleet = (id: string, backlog: () => number, hurry?: () => boolean, intervalMs = INTERVAL_MS) => {
    const f = createFleet({ conn, configHash: () => 'h', instanceId: id, storeKind: 'redis', backlog, hurry, intervalMs, ttlMs: TTL_MS });
    fleets.push(f);
    return f;
  };
  before(async () => {
    conn = connectRedis(`${SHARED_REDIS}/?prefix=${prefix}`);
    expect(await conn.ready(2000)).to.equal(true);
  });
  after(async () => {
    for (const f of fleets) await f.close();
    await deletePrefix(SHARED_REDIS, prefix);
    await conn.close();
  });

  it('waits for a live member with an outage backlog, and for a dead member no longer than its heartbeat TTL', async () => {
    let backlogB = 3;
    const a = fleet('a', () => 0);
    const b = fleet('b', () => backlogB);
    const dead = fleet('dead', () => 5);
    await dead.beat(); // one heartbeat with a backlog, then the instance dies (no close, no more beats)
    await b.beat();
    await a.beat();
    expect(a.members().map((m) => m.instance_id)).to.deep.equal(['a', 'b', 'dead']);
    const since = Date.now();
    expect(a.caughtUpSince(since), 'b and the dead one still hold outage work').to.equal(false);

    backlogB = 0;
    await new Promise((r) => setTimeout(r, 5));
    await b.beat();
    await a.beat();
    expect(a.caughtUpSince(since), 'the dead member still counts within its TTL').to.equal(false);
    // Without reading the store again: a member unseen for the TTL no longer counts.
    await waitFor(async () => a.caughtUpSince(since), TTL_MS + 1000, 'the dead member past its TTL');
    expect(a.members().map((m) => m.instance_id), 'not re-read from the store yet').to.include('dead');
    await b.beat();
    await a.beat();
    expect(a.members().map((m) => m.instance_id), 'the store dropped it too').to.deep.equal(['a', 'b']);
  });

  it('beats every CATCH_UP_INTERVAL_MS while catching up, else every interval', async () => {
    let hurry = true;
    const c = fleet('c', () => 0, () => hurry, 3000);
    const beats: number[] = [];
    const beat = c.beat.bind(c);
    c.beat = async () => { beats.push(Date.now()); await beat(); };
    c.start();
    await new Promise((r) => setTimeout(r, 4 * CATCH_UP_INTERVAL_MS + 100));
    hurry = false;
    const fast = beats.length;
    expect(fast, 'beats while catching up').to.be.at.least(4);
    await new Promise((r) => setTimeout(r, 1500));
    expect(beats.length - fast, 'beats in the 1.5 s after (interval 3 s)').to.be.at.most(1);
  });
});
