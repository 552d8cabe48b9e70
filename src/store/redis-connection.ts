import { Cluster, Redis } from 'ioredis';
import { parseRedisUrl, type RedisTarget, type StoreTls } from './redis-url.js';

/** A client of either shape: one Redis (single or through Sentinel) or a Cluster. */
export type RedisClient = Redis | Cluster;

/** A Redis connection of the gateway: the client and the prefix every key is written under. */
export interface RedisConnection {
  readonly client: RedisClient;
  /** Prepended to every key (default `gw:`; `?prefix=` in the store URL sets it). */
  readonly prefix: string;
  readonly kind: RedisTarget['kind'];
  /** Whether commands can be sent right now. */
  healthy(): boolean;
  /** Resolves once connected, or after `timeoutMs` (the gateway starts either way). */
  ready(timeoutMs: number): Promise<boolean>;
  /** Calls `listener` each time the connection (re)becomes ready. */
  onReady(listener: () => void): void;
  close(): Promise<void>;
}

/** Per-command limit: a stalled Redis must not hold requests longer than this. */
const COMMAND_TIMEOUT_MS = 1000;

/**
 * Connects to the store URL (see parseRedisUrl for the schemes). Commands fail fast while
 * disconnected (no offline queue, 1 s command timeout) so the gateway can fall back at once;
 * the client keeps reconnecting in the background (every 100 ms growing to 1 s) and Redis is
 * used again as soon as it is back.
 */
export function connectRedis(storeUrl: string, onError?: (message: string) => void, tls: StoreTls = {}): RedisConnection {
  const { target, prefix } = parseRedisUrl(storeUrl, tls);
  const common = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2000,
    retryStrategy: (times: number) => Math.min(100 * times, 1000),
  };
  let client: RedisClient;
  if (target.kind === 'cluster') {
    client = new Cluster(target.nodes, {
      ...target.options,
      enableOfflineQueue: false,
      clusterRetryStrategy: (times: number) => Math.min(100 * times, 1000),
      slotsRefreshTimeout: 2000,
      redisOptions: { ...target.options.redisOptions, maxRetriesPerRequest: common.maxRetriesPerRequest, commandTimeout: common.commandTimeout, connectTimeout: common.connectTimeout },
    });
  } else if (target.kind === 'sentinel') {
    client = new Redis({ ...target.options, ...common, sentinelRetryStrategy: (times: number) => Math.min(100 * times, 1000) });
  } else {
    client = new Redis(target.url, { ...target.options, ...common });
  }
  let lastError = '';
  // Without a listener ioredis prints every reconnect failure; report each distinct one once.
  client.on('error', (e: Error) => {
    if (e.message !== lastError) onError?.(e.message);
    lastError = e.message;
  });
  client.on('ready', () => { lastError = ''; });
  return {
    client,
    prefix,
    kind: target.kind,
    healthy: () => client.status === 'ready',
    ready(timeoutMs) {
      if (client.status === 'ready') return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (ok: boolean) => { clearTimeout(timer); client.off('ready', onReady); resolve(ok); };
        const onReady = () => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        timer.unref?.();
        client.once('ready', onReady);
      });
    },
    onReady(listener) {
      client.on('ready', listener);
    },
    async close() {
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}
