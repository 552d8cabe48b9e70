import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis, type RedisOptions } from 'ioredis';
import { freePort } from '../../helpers/free-port.js';

const run = promisify(execFile);

/** redis-server children this test started, stopped together. */
export interface RedisTopology { url: string; dir: string; ports: number[]; stop(): Promise<void> }

function spawnServer(args: string[], cwd: string): ChildProcess {
  return spawn('redis-server', args, { cwd, stdio: 'ignore' });
}

async function stopAll(children: ChildProcess[], dir: string): Promise<void> {
  await Promise.all(children.map((c) => new Promise<void>((resolve) => {
    if (c.exitCode !== null) return resolve();
    c.once('exit', () => resolve());
    c.kill('SIGKILL');
  })));
  rmSync(dir, { recursive: true, force: true });
}

async function waitUntil(check: () => Promise<boolean>, ms: number, label: string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function ping(options: RedisOptions): Promise<Redis> {
  const c = new Redis({ ...options, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  c.on('error', () => undefined);
  await c.connect();
  await c.ping();
  return c;
}

/** A 3-master Redis Cluster on free loopback ports (no replicas), created with redis-cli --cluster create. */
export async function startRedisCluster(): Promise<RedisTopology> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-cluster-'));
  const ports = [await freePort(), await freePort(), await freePort()];
  const children = ports.map((p) => spawnServer(['--port', String(p), '--bind', '127.0.0.1', '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${p}.conf`, '--save', '', '--appendonly', 'no'], dir));
  try {
    for (const p of ports) await waitUntil(async () => { (await ping({ port: p, host: '127.0.0.1' })).disconnect(); return true; }, 10_000, `cluster node ${p}`);
    await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], { timeout: 20_000 });
    for (const p of ports) {
      await waitUntil(async () => {
        const c = await ping({ port: p, host: '127.0.0.1' });
        const info = await c.cluster('INFO');
        c.disconnect();
        return String(info).includes('cluster_state:ok');
      }, 15_000, `cluster state ok on ${p}`);
    }
  } catch (e) {
    await stopAll(children, dir);
    throw e;
  }
  return { url: `redis-cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`, dir, ports, stop: () => stopAll(children, dir) };
}

/** A TLS-only redis-server with a CA and server certificate made by openssl in a temp folder. */
export async function startTlsRedis(): Promise<RedisTopology & { caFile: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-tls-'));
  const sh = (args: string[]) => run('openssl', args, { cwd: dir });
  await sh(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '1', '-subj', '/CN=gateway-test-ca']);
  await sh(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost']);
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await sh(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '1', '-extfile', 'ext.cnf']);
  const port = await freePort();
  const child = spawnServer(['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1', '--tls-cert-file', 'server.crt', '--tls-key-file', 'server.key', '--tls-ca-cert-file', 'ca.crt', '--tls-auth-clients', 'no', '--save', '', '--appendonly', 'no'], dir);
  const caFile = join(dir, 'ca.crt');
  try {
    const { readFileSync } = await import('node:fs');
    await waitUntil(async () => { (await ping({ host: '127.0.0.1', port, tls: { ca: readFileSync(caFile) } })).disconnect(); return true; }, 10_000, 'TLS redis');
  } catch (e) {
    await stopAll([child], dir);
    throw e;
  }
  return { url: `rediss://127.0.0.1:${port}`, dir, ports: [port], caFile, stop: () => stopAll([child], dir) };
}

/** A master with a password and one Sentinel watching it as `mymaster`. */
export async function startSentinel(password: string): Promise<RedisTopology> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-sentinel-'));
  const master = await freePort();
  const sentinel = await freePort();
  const children = [spawnServer(['--port', String(master), '--bind', '127.0.0.1', '--requirepass', password, '--masterauth', password, '--save', '', '--appendonly', 'no'], dir)];
  writeFileSync(join(dir, 'sentinel.conf'), [
    `port ${sentinel}`, 'bind 127.0.0.1', `dir ${dir}`,
    `sentinel monitor mymaster 127.0.0.1 ${master} 1`, `sentinel auth-pass mymaster ${password}`,
    'sentinel down-after-milliseconds mymaster 5000', '',
  ].join('\n'));
  children.push(spawn('redis-server', [join(dir, 'sentinel.conf'), '--sentinel'], { cwd: dir, stdio: 'ignore' }));
  try {
    await waitUntil(async () => {
      const c = await ping({ host: '127.0.0.1', port: sentinel });
      const addr = await c.call('SENTINEL', 'get-master-addr-by-name', 'mymaster') as string[] | null;
      c.disconnect();
      return Array.isArray(addr) && Number(addr[1]) === master;
    }, 10_000, 'sentinel');
  } catch (e) {
    await stopAll(children, dir);
    throw e;
  }
  return { url: `redis+sentinel://:${encodeURIComponent(password)}@127.0.0.1:${sentinel}/mymaster`, dir, ports: [master, sentinel], stop: () => stopAll(children, dir) };
}
