import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { RedisConnection } from '../store/redis-connection.js';
import type { StoreKind } from '../store/redis-url.js';

/** What an instance says about itself (in `/readyz` and in the fleet's heartbeats). */
export interface InstanceInfo {
  config_hash: string;
  instance_id: string;
  store: { kind: StoreKind; healthy: boolean };
}

/** One live member of the fleet as published in the store. */
export interface FleetMember {
  instance_id: string; config_hash: string; host: string; pid: number; started_at: string; seen_at: string;
  /** Outage work not yet written back to the store (journaled settlements and local holds). */
  backlog?: number;
}

/** This instance's view of the fleet. */
export interface Fleet {
  /** This instance: config hash, id, store kind and health. */
  describe(): Promise<InstanceInfo>;
  /** How many instances share the store (`store.instances` when set, else the live heartbeats; >= 1). */
  instances(): number;
  /** The live members last seen (this one included). */
  members(): readonly FleetMember[];
  /**
   * True when every other live member has published a heartbeat after `sinceMs` with no
   * outage backlog: whatever they admitted while the store was away is in the store now.
   */
  caughtUpSince(sinceMs: number): boolean;
  /** Publishes one heartbeat now and reads the others (also done every interval once started). */
  beat(): Promise<void>;
  start(): void;
  close(): Promise<void>;
}

/** A new instance id: host name plus random suffix (unique per process start). */
export function createInstanceId(): string {
  return `${hostname().replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 40)}-${randomBytes(4).toString('hex')}`;
}

/** Heartbeat period; a member unseen for HEARTBEAT_TTL_MS is gone. */
export const HEARTBEAT_INTERVAL_MS = 3000;
export const HEARTBEAT_TTL_MS = 10_000;
/** Heartbeat period while this instance is catching up after a store outage (see `hurry`). */
export const CATCH_UP_INTERVAL_MS = 500;

// KEYS[1] members (sorted set id -> expiry ms), KEYS[2] info (hash id -> JSON); both under the
// `{fleet}` hash tag. ARGV id, JSON (empty: read only), ttl ms. Returns the live JSON values.
const BEAT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if ARGV[2] ~= '' then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
end
local gone = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)
for _, id in ipairs(gone) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
end
local live = redis.call('ZRANGE', KEYS[1], 0, -1)
if #live == 0 then return {} end
return redis.call('HMGET', KEYS[2], unpack(live))
`;

type BeatCommand = (members: string, info: string, id: string, json: string, ttlMs: string) => Promise<Array<string | null>>;

/** The Redis keys of the fleet under a prefix. */
export function fleetKeys(prefix: string): { members: string; info: string } {
  return { members: `${prefix}{fleet}:members`, info: `${prefix}{fleet}:info` };
}

/** Reads the live members from the store without publishing (for `gateway status`). */
export async function readFleet(conn: RedisConnection): Promise<FleetMember[]> {
  defineBeat(conn);
  const k = fleetKeys(conn.prefix);
  const values = await (conn.client as unknown as { gwFleetBeat: BeatCommand }).gwFleetBeat(k.members, k.info, '', '', '0');
  return parseMembers(values);
}

/**
 * The fleet on a Redis store: every HEARTBEAT_INTERVAL_MS the instance publishes its
 * InstanceInfo (a TTL'd member of `{fleet}:members`) and reads the others; `onMismatch` hears
 * once about each other instance serving a config with another hash.
 */
export function createFleet(options: {
  conn?: RedisConnection;
  /** The fleet hash of the config in force, read each time it is needed (the caller keeps it cheap). */
  configHash: () => string;
  instanceId?: string; storeKind: StoreKind; configuredInstances?: number;
  onMismatch?: (other: FleetMember, own: string) => void;
  /** This instance's outage backlog, published with each heartbeat. */
  backlog?: () => number;
  /**
   * True while this instance is catching up after a store outage: it then beats every
   * CATCH_UP_INTERVAL_MS, so the fleet learns at once that its backlog is written back and it
   * sees the others' fresh heartbeats sooner.
   */
  hurry?: () => boolean;
  /** Heartbeat period and lifetime (tests shorten them). */
  intervalMs?: number;
  ttlMs?: number;
}): Fleet {
  const instanceId = options.instanceId ?? createInstanceId();
  const startedAt = new Date().toISOString();
  const { conn } = options;
  const intervalMs = options.intervalMs ?? HEARTBEAT_INTERVAL_MS;
  const ttlMs = options.ttlMs ?? HEARTBEAT_TTL_MS;
  let closed = false;
  let started = false;
  const { configHash } = options;
  let members: FleetMember[] = [];
  let timer: NodeJS.Timeout | undefined;
  const warned = new Set<string>();
  if (conn) defineBeat(conn);
  const self = (): FleetMember => ({ instance_id: instanceId, config_hash: configHash(), host: hostname(), pid: process.pid, started_at: startedAt, seen_at: new Date().toISOString(), backlog: options.backlog?.() ?? 0 });
  const fleet: Fleet = {
    async describe() {
      return { config_hash: configHash(), instance_id: instanceId, store: { kind: options.storeKind, healthy: conn ? conn.healthy() : true } };
    },
    instances() {
      if (options.configuredInstances) return options.configuredInstances;
      return Math.max(1, members.length);
    },
    members: () => (members.length > 0 ? members : [self()]),
    caughtUpSince(sinceMs) {
      // A member whose last heartbeat is older than the TTL is gone (dead, or cut off from the
      // store and so admitting nothing the store would not see): it never holds the fleet back,
      // even while the list read from the store is older than its expiry.
      const alive = Date.now() - ttlMs;
      return members.every((m) => {
        if (m.instance_id === instanceId) return true;
        const seen = Date.parse(m.seen_at);
        return seen <= alive || (seen > sinceMs && !m.backlog);
      });
    },
    async beat() {
      if (!conn) return;
      const k = fleetKeys(conn.prefix);
      const values = await (conn.client as unknown as { gwFleetBeat: BeatCommand }).gwFleetBeat(k.members, k.info, instanceId, JSON.stringify(self()), String(ttlMs));
      members = parseMembers(values);
      for (const m of members) {
        if (m.instance_id === instanceId || m.config_hash === configHash()) continue;
        const seen = `${m.instance_id}:${m.config_hash}`;
        if (warned.has(seen)) continue;
        warned.add(seen);
        options.onMismatch?.(m, configHash());
      }
    },
    start() {
      if (!conn || started) return;
      started = true;
      const schedule = () => {
        if (closed) return;
        timer = setTimeout(tick, options.hurry?.() ? Math.min(CATCH_UP_INTERVAL_MS, intervalMs) : intervalMs);
        timer.unref();
      };
      const tick = () => { fleet.beat().catch(() => undefined).finally(schedule); };
      tick();
      // Back from an outage: say so (and read the others) at once rather than at the next beat.
      conn.onReady(() => { if (!closed) fleet.beat().catch(() => undefined); });
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      if (!conn || !conn.healthy()) return;
      // Leave at once rather than after the TTL, so outage shares grow back promptly.
      const k = fleetKeys(conn.prefix);
      await Promise.all([conn.client.zrem(k.members, instanceId), conn.client.hdel(k.info, instanceId)]).catch(() => undefined);
    },
  };
  return fleet;
}

function defineBeat(conn: RedisConnection): void {
  if (!(conn.client as unknown as { gwFleetBeat?: unknown }).gwFleetBeat) conn.client.defineCommand('gwFleetBeat', { numberOfKeys: 2, lua: BEAT });
}

function parseMembers(values: Array<string | null>): FleetMember[] {
  const out: FleetMember[] = [];
  for (const v of values) {
    if (!v) continue;
    try {
      out.push(JSON.parse(v) as FleetMember);
    } catch {
      // a member written by an incompatible version: not ours to read
    }
  }
  return out.sort((a, b) => a.instance_id.localeCompare(b.instance_id));
}
