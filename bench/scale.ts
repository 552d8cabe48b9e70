/**
 * `npm run bench:scale`: 1, 2 and 4 gateway processes behind a round-robin balancer (node:http,
 * in this process) on one private redis-server, with a key whose rpm limit and budget are on
 * (high enough never to refuse, so every request pays the store's work). Per case: req/s,
 * gateway CPU per request (sum over the instances, /proc/<pid>/stat) and Redis work per
 * request from `INFO commandstats` deltas: the request path sends only Lua scripts (EVALSHA),
 * so script calls are its round trips; the commands the scripts run are listed apart.
 * Loopback only, each case <= 8 s of load.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { parse, stringify } from 'yaml';
import { readCpuMs, spawnGateway, type Child } from './children.js';
import { freePort } from '../test/helpers/free-port.js';
import { runLoad } from './load.js';

const LOAD_SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_SCALE_CONNECTIONS ?? 32);
const CASES = (process.env.BENCH_SCALE_CASES ?? '1,2,4').split(',').map(Number);
const cli = resolve(process.cwd(), 'dist/src/cli/main.js');

/** A private redis-server (no persistence) on a free port. */
async function startRedis(): Promise<{ url: string; proc: ChildProcess }> {
  const port = await freePort();
  const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    const c = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    c.on('error', () => undefined);
    try {
      await c.connect();
      await c.ping();
      c.disconnect();
      return { url, proc };
    } catch {
      c.disconnect();
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error('redis-server did not start');
}

/** gateway.yaml: the repo's sandbox models, one key with rpm and budget, the given store. */
function writeConfig(storeUrl: string, key: string): string {
  const repo = parse(readFileSync(resolve(process.cwd(), 'gateway.yaml'), 'utf8')) as { models: Array<Record<string, unknown>> };
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-scale-'));
  const config = {
    routes: resolve(process.cwd(), 'routes'),
    server: { host: '127.0.0.1', port: 8080, log_level: 'silent' },
    auth: { keys: [{ name: 'bench', sha256: createHash('sha256').update(key).digest('hex'), rpm: 100_000_000, budget: { usd: 1_000_000, period: 'total' } }] },
    store: { url: storeUrl, on_error: 'closed' },
    realtime: { secret: randomBytes(16).toString('hex') },
    files: { dir: join(dir, 'files') },
    providers: { sandbox: { type: 'sandbox' } },
    models: repo.models.filter((m) => String(m.id).startsWith('sandbox/')),
  };
  const file = join(dir, 'gateway.yaml');
  // Each instance listens where spawnGateway says (HOST/PORT).
  writeFileSync(file, stringify(config).replace('host: 127.0.0.1\n  port: 8080', 'host: ${HOST}\n  port: ${PORT}'));
  return file;
}

/** A round-robin HTTP balancer on loopback (keep-alive to each upstream). */
async function startBalancer(targets: string[]): Promise<{ url: string; close(): Promise<void> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server = http.createServer((req, res) => {
    const target = new URL(targets[next++ % targets.length]!);
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => { res.statusCode = 502; res.end(); });
    req.pipe(upstream);
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); agent.destroy(); }) };
}

/** Total calls per command from INFO commandstats. */
async function commandCalls(redis: Redis): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of String(await redis.info('commandstats')).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

async function main(): Promise<void> {
  const redisServer = await startRedis();
  const admin = new Redis(redisServer.url);
  const key = `sk-bench-${randomBytes(8).toString('hex')}`;
  const config = writeConfig(redisServer.url, key);
  const body = JSON.stringify({ model: 'sandbox/echo-1', max_tokens: 16, messages: [{ role: 'user', content: 'Say something short about load balancers.' }] });
  const rows: string[] = [];
  try {
    for (const n of CASES) {
      const gateways: Child[] = [];
      for (let i = 0; i < n; i++) gateways.push(await spawnGateway(cli, config, { LOG_LEVEL: 'silent' }, key));
      const balancer = await startBalancer(gateways.map((g) => g.url));
      try {
        // Warm-up (tokenizer, JIT, keep-alive sockets: 2 s per instance), then the measured run.
        await runLoad({ url: `${balancer.url}/v1/chat/completions`, connections: CONNECTIONS, duration: Math.min(8, 2 * n), method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
        const before = await commandCalls(admin);
        const cpuBefore = gateways.map((g) => readCpuMs(g.pid) / 1000);
        const load = await runLoad({ url: `${balancer.url}/v1/chat/completions`, connections: CONNECTIONS, duration: LOAD_SECONDS, method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
        const cpu = gateways.reduce((s, g, i) => s + readCpuMs(g.pid) / 1000 - cpuBefore[i]!, 0);
        const after = await commandCalls(admin);
        const delta: Record<string, number> = {};
        for (const [cmd, calls] of Object.entries(after)) {
          if (cmd === 'info') continue;
          const d = calls - (before[cmd] ?? 0);
          if (d > 0) delta[cmd] = d;
        }
        const per = (d: number) => (d / Math.max(1, load.totalRequests)).toFixed(2);
        const scripts = (delta.evalsha ?? 0) + (delta.eval ?? 0);
        const inner = Object.entries(delta).filter(([c]) => c !== 'evalsha' && c !== 'eval').reduce((s, [, d]) => s + d, 0);
        rows.push(`| ${n} | ${load.reqPerSec.toFixed(0)} | ${load.p50.toFixed(1)} | ${load.p99.toFixed(1)} | ${(cpu * 1e6 / Math.max(1, load.totalRequests)).toFixed(0)} | ${per(scripts)} | ${per(inner)} | ${load.non2xx}/${load.errors} |`);
        console.error(`instances=${n}: ${load.reqPerSec.toFixed(0)} req/s`);
      } finally {
        await balancer.close();
        await Promise.all(gateways.map((g) => g.stop()));
      }
    }
  } finally {
    admin.disconnect();
    redisServer.proc.kill('SIGKILL');
  }
  console.log(`\nbench:scale: ${CONNECTIONS} connections, ${LOAD_SECONDS} s per case, POST /v1/chat/completions (sandbox/echo-1), key with rpm + total budget, store on one redis-server\n`);
  console.log('| instances | req/s | p50 ms | p99 ms | gateway CPU µs/req (all instances) | Redis round trips/req (script calls) | commands run inside scripts/req | non-2xx/errors |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
}

main().catch((e: unknown) => { console.error(e); process.exitCode = 1; });
