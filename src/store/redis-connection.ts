import { Redis } from 'ioredis';

/** A Redis connection of the gateway: the client and the prefix every key is written under. */
export interface RedisConnection {
  readonly client: Redis;
  /** Prepended to every key (default `gw:`; `?prefix=` in the store URL sets it). */
  readonly prefix: string;
  /** Resolves once connected, or after `timeoutMs` (the gateway starts either way). */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Default key prefix. */
export const DEFAULT_REDIS_PREFIX = 'gw:';

/**
 * Connects to the store URL (`redis://` or `rediss://`; an optional `prefix` query parameter
 * sets the key prefix). Commands fail fast while disconnected (no offline queue, 1 s command
 * timeout) so the gateway can fall back at once; the client keeps reconnecting in the
 * background (every 100 ms growing to 1 s) and Redis is used again as soon as it is back.
 */
export function connectRedis(storeUrl: string, onError?: (message: string) => void): RedisConnection {
  const url = new URL(storeUrl);
  const prefix = url.searchParams.get('prefix') ?? DEFAULT_REDIS_PREFIX;
  url.searchParams.delete('prefix');
  const client = new Redis(url.toString(), {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(100 * times, 1000),
    lazyConnect: false,
  });
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
    async close() {
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}
