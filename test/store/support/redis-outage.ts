/**
 * One gateway instance's Redis outage on the shared Redis: a healthy connection (the other
 * instance) and a view of the same connection whose commands fail while `down` is set.
 */
import { expect } from 'chai';
import { connectRedis, type RedisConnection } from '../../../src/store/redis-connection.js';
import { SUSPECT_MS } from '../../../src/store/redis-fallback.js';
import { deletePrefix, failWhileDown, SHARED_REDIS, uniquePrefix } from './redis.js';

/** The connections of one outage scenario (set in `before`). */
export interface RedisOutage {
  /** The key prefix of this run (deleted afterwards). */
  readonly prefix: string;
  /** The healthy connection: another instance's view of Redis. */
  conn: RedisConnection;
  /** `conn` with every command failing while `down` is true. */
  flaky: RedisConnection;
  down: boolean;
}

/** Registers before/after hooks that connect under a fresh prefix, then delete the prefix and close. */
export function useRedisOutage(label: string): RedisOutage {
  const outage = { prefix: uniquePrefix(label), down: false } as RedisOutage;
  before(async () => {
    outage.conn = connectRedis(`${SHARED_REDIS}/?prefix=${outage.prefix}`);
    expect(await outage.conn.ready(2000), 'the shared Redis answers').to.equal(true);
    outage.flaky = { ...outage.conn, client: failWhileDown(outage.conn.client, () => outage.down) };
  });
  after(async () => {
    await deletePrefix(SHARED_REDIS, outage.prefix);
    await outage.conn?.close();
  });
  return outage;
}

/**
 * Waits until the store guard tries Redis again: after a failure it skips Redis for SUSPECT_MS
 * (no command timeouts against a stalled Redis), and the first call after that replays the journal.
 */
export function waitOutSuspect(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, SUSPECT_MS + 50));
}
