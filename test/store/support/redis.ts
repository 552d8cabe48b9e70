import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { freePort } from '../../helpers/free-port.js';

/** The machine's Redis, shared by test runs: every test uses its own key prefix and cleans up. */
export const SHARED_REDIS = 'redis://127.0.0.1:6379';

/** A key prefix no other test run uses. */
export function uniquePrefix(label: string): string {
  return `gwtest:${label}:${process.pid}:${randomBytes(4).toString('hex')}:`;
}

/** Deletes every key under a prefix. */
export async function deletePrefix(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await client.del(...keys);
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}

/** Counts keys under a prefix. */
export async function countKeys(url: string, prefix: string): Promise<number> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    let cursor = '0';
    let n = 0;
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      n += keys.length;
    } while (cursor !== '0');
    return n;
  } finally {
    client.disconnect();
  }
}

/** A throwaway redis-server child (no persistence) this test may kill and restart. */
export interface RedisChild {
  port: number; url: string; stop(): Promise<void>; start(): Promise<void>; running(): boolean;
  /** SIGSTOP: the server stalls with its sockets open (commands time out, nothing is lost). */
  pause(): void;
  /** SIGCONT after pause(): queued commands run. */
  resume(): void;
  pid(): number | undefined;
}

/** Starts `redis-server --port <port> --save '' --appendonly no` and waits until it answers. */
export async function startRedisChild(port?: number, extraArgs: string[] = []): Promise<RedisChild> {
  const p = port ?? await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(p), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs], { stdio: 'ignore' });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const c = new Redis(`redis://127.0.0.1:${p}`, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      c.on('error', () => undefined);
      try {
        await c.connect();
        await c.ping();
        c.disconnect();
        return;
      } catch {
        c.disconnect();
        if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${p}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null) return;
    c.kill('SIGCONT');
    await new Promise<void>((resolve) => { c.once('exit', () => resolve()); c.kill('SIGKILL'); });
  };
  await start();
  return {
    port: p, url: `redis://127.0.0.1:${p}`, stop, start, running: () => child !== undefined && child.exitCode === null,
    pause: () => { child?.kill('SIGSTOP'); },
    resume: () => { child?.kill('SIGCONT'); },
    pid: () => child?.pid,
  };
}

/** Polling helper, re-exported for the store tests that import it from here. */
export { waitFor } from '../../helpers/wait-for.js';

/**
 * A view of `client` whose every method call fails with "connection lost" while `isDown()`
 * is true: one instance's outage, while other clients of the same Redis keep working.
 */
export function failWhileDown<C extends object>(client: C, isDown: () => boolean): C {
  return new Proxy(client, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => (isDown() ? Promise.reject(new Error('connection lost')) : (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
}
