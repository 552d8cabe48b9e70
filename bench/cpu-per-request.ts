/**
 * `npm run bench`: server CPU time per request, the gateway beside a bare node:http + undici
 * proxy in the same run (the method of ../shared/bench/cpu-per-req.sh, which is robust to a
 * noisy machine where req/s is not). Each server runs pinned to core 0 (taskset), the load
 * generator (autocannon, BENCH_CONC connections, a fixed BENCH_N requests) on core 1; CPU is
 * user+sys from /proc/PID/stat read around each burst, the bare proxy and the gateway taking
 * turns in four bursts each per case (measurePair). Cases: plain chat completions, streams
 * of 20 and 500 chunks, and response cache hits (plain and streamed) against the bare proxy's
 * forwarded call. The gateway runs the shipped gateway.yaml with a key that has rpm, tpm
 * and a budget (so auth, validation, limits and accounting are all on). Also reported: time to
 * ready of the shipped config with a plain key (started alone first, then restarted with the
 * same config) and its idle RSS, startup time to the first /healthz answer, idle RSS and peak
 * RSS with the limited key, and the longest event-loop delay of each case, warm-up and first
 * request included, on the server that carried it
 * (perf_hooks.monitorEventLoopDelay, preloaded by loop-monitor.ts).
 * Prints one table and writes it to bench/cpu-results.md.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { readCpuMs, readMemory } from './children.js';
import { freePort } from '../test/helpers/free-port.js';

const N = Number(process.env.BENCH_N ?? 20_000);
const CONC = Number(process.env.BENCH_CONC ?? 16);
const KEY = 'bench-key-0123456789abcdef';
const root = process.cwd();
const dist = join(root, 'dist');
const pin = spawnSync('taskset', ['-V']).status === 0;

interface Server { pid: number; url: string; proc: ChildProcess; stop(): Promise<void>; loopFile?: string }

/** Event-loop delay figures of one stretch of a server's life (see loop-monitor.ts). */
interface LoopDelay { maxMs: number; p99Ms: number }

function spawnPinned(core: string, args: string[], env: Record<string, string>, stdout: 'pipe' | 'ignore' = 'ignore', cwd = root): ChildProcess {
  const [cmd, argv] = pin ? ['taskset', ['-c', core, process.execPath, ...args]] : [process.execPath, args];
  return spawn(cmd, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', stdout, 'inherit'] });
}

function stopper(proc: ChildProcess, signal: NodeJS.Signals): () => Promise<void> {
  return () => new Promise((done) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return done();
    const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    proc.once('exit', () => { clearTimeout(t); done(); });
    proc.kill(signal);
  });
}

/** Starts a helper that prints `READY <port>` (fake upstream, bare proxy). */
function startReady(script: string, env: Record<string, string>, core: string, preload: string[] = []): Promise<Server> {
  const proc = spawnPinned(core, [...preload, script], env, 'pipe');
  return new Promise((ok, fail) => {
    let out = '';
    proc.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /READY (\d+)/.exec(out);
      if (m) { proc.stdout!.removeAllListeners('data'); proc.stdout!.resume(); ok({ pid: proc.pid!, url: `http://127.0.0.1:${m[1]}`, proc, stop: stopper(proc, 'SIGTERM') }); }
    });
    proc.once('exit', (code) => fail(new Error(`${script} exited ${code}`)));
  });
}

/** A copy of the shipped config whose only key has rpm, tpm and a budget (and, for the cache-hit cases, the response cache on). */
function writeBenchConfig(dir: string, cache = false): string {
  const doc = parseDocument(readFileSync(join(root, 'gateway.yaml'), 'utf8'));
  const sha256 = createHash('sha256').update(KEY).digest('hex');
  doc.setIn(['routes'], join(root, 'routes'));
  doc.setIn(['auth', 'keys'], doc.createNode([{ name: 'bench', sha256, rpm: 100_000_000, tpm: 1_000_000_000_000, budget: { usd: 1_000_000, period: 'total' } }]));
  doc.setIn(['server', 'log_level'], 'warn');
  if (cache) doc.setIn(['cache', 'enabled'], true);
  const file = join(dir, cache ? 'gateway-cache.yaml' : 'gateway.yaml');
  writeFileSync(file, doc.toString());
  return file;
}

function chatModel(): string {
  const models = (parseDocument(readFileSync(join(root, 'gateway.yaml'), 'utf8')).toJS() as { models: Array<{ id: string; provider: string; endpoints?: string[]; parameters?: string[] }> }).models;
  const m = models.find((x) => x.provider === 'openai' && x.endpoints?.includes('/v1/chat/completions') && x.parameters?.includes('temperature') && x.parameters.includes('stream'));
  if (!m) throw new Error('no openai chat model with temperature in gateway.yaml');
  return m.id;
}

async function startGateway(config: string, upstream: string, loopFile: string): Promise<Server & { startupMs: number }> {
  const gw = await startGatewayOf(root, ['--import', join(dist, 'bench/loop-monitor.js')], ['--config', config], upstream, { BENCH_LOOP_FILE: loopFile });
  return { ...gw, loopFile };
}

/** Throws unless `payload` is answered from the response cache (a cache-hit case that measured forwarding would mislead). */
async function assertCacheHit(server: Server, payload: string): Promise<void> {
  const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: payload });
  await res.arrayBuffer();
  const status = res.headers.get('x-gateway-cache');
  if (status !== 'hit') throw new Error(`${server.url}: a cache-hit case answered x-gateway-cache: ${status ?? '(none)'}`);
}

/** Ends the server's current event-loop record (SIGUSR2) and returns it once written. */
async function loopRecord(server: Server): Promise<LoopDelay> {
  const file = server.loopFile!;
  const lines = () => { try { return readFileSync(file, 'utf8').split('\n').filter(Boolean); } catch { return []; } };
  const before = lines().length;
  server.proc.kill('SIGUSR2');
  for (let i = 0; i < 400; i++) {
    const now = lines();
    if (now.length > before) return JSON.parse(now[now.length - 1]!) as LoopDelay;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${file}: no event-loop record`);
}

/**
 * A built gateway checkout (`checkout`/dist) pinned to core 0, serving once `probe` answers 200.
 * A `.js` file in the checkout's place is a server script started the same way (PORT,
 * OPENAI_BASE_URL), e.g. dist/bench/koa-floor.js, probed at GET /v1/models.
 */
async function startGatewayOf(checkout: string, nodeArgs: string[], serveArgs: string[], upstream: string, env: Record<string, string>, probe = '/healthz'): Promise<Server & { startupMs: number }> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const t0 = performance.now();
  const script = checkout.endsWith('.js');
  if (script) probe = '/v1/models';
  const proc = spawnPinned('0', [...nodeArgs, ...(script ? [checkout] : [join(checkout, 'dist/src/cli/main.js'), 'serve', ...serveArgs])], {
    HOST: '127.0.0.1', PORT: String(port), OPENAI_API_KEY: 'sk-bench', OPENAI_BASE_URL: `${upstream}/v1`, NODE_ENV: 'production', LOG_LEVEL: 'warn', ...env,
  }, 'ignore', script ? root : checkout);
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`gateway exited with ${proc.exitCode}`);
    try {
      const r = await fetch(`${url}${probe}`);
      await r.arrayBuffer();
      if (r.ok) break;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 5));
  }
  return { pid: proc.pid!, url, proc, stop: stopper(proc, 'SIGINT'), startupMs: performance.now() - t0 };
}

function body(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    messages: [
      { role: 'system', content: 'You are a concise assistant that answers in one sentence.' },
      { role: 'user', content: 'Summarize the benefits of using an API gateway in front of several large language model providers, in one short sentence.' },
    ],
    temperature: 0.7, max_tokens: 128, user: 'bench-user-0001', ...(stream ? { stream: true } : {}),
  });
}

/** Runs autocannon (pinned to core 1) for `amount` requests; returns the 2xx count. */
function load(url: string, payload: string, amount: number): number {
  const [cmd, argv] = loadCommand(url, payload, amount);
  return answered(url, spawnSync(cmd, argv, { encoding: 'utf8', maxBuffer: 64 << 20 }).stdout);
}

/** Like `load`, without blocking: several loads run at once (`--concurrent`). */
function loadAsync(url: string, payload: string, amount: number): Promise<number> {
  const [cmd, argv] = loadCommand(url, payload, amount);
  return new Promise((ok, fail) => {
    const proc = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    proc.stdout!.setEncoding('utf8').on('data', (c: string) => { out += c; });
    proc.once('error', fail);
    proc.once('close', () => {
      try { ok(answered(url, out)); } catch (e) { fail(e); }
    });
  });
}

/** autocannon (pinned to core 1 when taskset is there) sending `amount` chat completions to `url`. */
function loadCommand(url: string, payload: string, amount: number): [string, string[]] {
  const ac = join(root, 'node_modules/autocannon/autocannon.js');
  const args = [ac, '-c', String(CONC), '-a', String(amount), '-m', 'POST', '-j', '-H', `authorization=Bearer ${KEY}`, '-H', 'content-type=application/json', '-b', payload, `${url}/v1/chat/completions`];
  return pin ? ['taskset', ['-c', '1', process.execPath, ...args]] : [process.execPath, args];
}

/** The 2xx count of autocannon's JSON report; any other answer or error fails the benchmark. */
function answered(url: string, report: string): number {
  const result = JSON.parse(report) as { '2xx': number; non2xx: number; errors: number };
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result['2xx'];
}

/**
 * CPU µs per request of the bare proxy and the gateway over `amount` requests each (after a
 * warm-up of a tenth), and the longest event-loop delay of each over the whole case, warm-up
 * included. The requests go in CASE_ROUNDS bursts per server, the two servers taking turns (the
 * order reversed every other round), and each server's CPU is summed over its bursts: one
 * burst each, one after the other, read 0.92x and 2.60x for the same build on a VM whose speed
 * drifts within a minute, because each server met a different stretch of the machine.
 */
async function measurePair(bare: Server, gateway: Server, payload: string, amount: number): Promise<[CaseResult, CaseResult]> {
  const servers = [bare, gateway] as const;
  for (const server of servers) {
    await loopRecord(server);
    load(server.url, payload, Math.max(200, Math.floor(amount / 10)));
  }
  const cpuMs = [0, 0];
  const ok = [0, 0];
  const burst = Math.ceil(amount / CASE_ROUNDS);
  for (let round = 0; round < CASE_ROUNDS; round++) {
    for (const i of round % 2 === 0 ? [0, 1] : [1, 0]) {
      const c0 = readCpuMs(servers[i]!.pid);
      ok[i]! += load(servers[i]!.url, payload, burst);
      cpuMs[i]! += readCpuMs(servers[i]!.pid) - c0;
    }
  }
  const result = async (i: number): Promise<CaseResult> => ({ us: (cpuMs[i]! * 1000) / ok[i]!, loop: await loopRecord(servers[i]!) });
  return [await result(0), await result(1)];
}

/** One server's figures for one case. */
interface CaseResult { us: number; loop: LoopDelay }

/** Bursts per server and case in measurePair (even: each server goes first as often). */
const CASE_ROUNDS = 4;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  const config = writeBenchConfig(dir);
  const model = chatModel();
  const servers: Server[] = [];
  const rows: Array<{ label: string; bare: number; gw: number; bareLoop: LoopDelay; gwLoop: LoopDelay }> = [];
  try {
    const up20 = await startReady(join(dist, 'bench/fake-upstream.js'), { BENCH_CHUNKS: '20' }, '1');
    const up500 = await startReady(join(dist, 'bench/fake-upstream.js'), { BENCH_CHUNKS: '500' }, '1');
    servers.push(up20, up500);
    // The shipped config with a plain key, alone on core 0: time to ready and idle RSS (the goals
    // of issue 11 are for this config; the limited key below also starts the tokenizer's worker).
    // Started twice on one port: the first start of this config in this build runs its checks,
    // a restart with the same config finds them remembered (config/remembered-checks.ts).
    const shippedEnv = { GATEWAY_API_KEYS: KEY, PORT: String(await freePort()) };
    const firstStart = await startGatewayOf(root, [], [], up20.url, shippedEnv, '/readyz');
    await firstStart.stop();
    const shipped = await startGatewayOf(root, [], [], up20.url, shippedEnv, '/readyz');
    await new Promise((r) => setTimeout(r, 2000));
    const shippedIdleMiB = readMemory(shipped.pid).rssKiB / 1024;
    await shipped.stop();
    // The bare proxies carry the same event-loop monitor: their delay under the same load is the reference.
    const monitor = ['--import', join(dist, 'bench/loop-monitor.js')];
    const bareProxy = async (upstream: string, loopFile: string): Promise<Server> =>
      ({ ...(await startReady(join(dist, 'bench/bare-proxy.js'), { UPSTREAM: upstream, BENCH_LOOP_FILE: loopFile }, '0', monitor)), loopFile });
    const bare20 = await bareProxy(up20.url, join(dir, 'bare-loop.jsonl'));
    const bare500 = await bareProxy(up500.url, join(dir, 'bare-loop500.jsonl'));
    servers.push(bare20, bare500);
    const gw = await startGateway(config, up20.url, join(dir, 'loop.jsonl'));
    const gw500 = await startGateway(config, up500.url, join(dir, 'loop500.jsonl'));
    // The response cache on: every request after the warm-up's first is a hit (no upstream call).
    const gwCache = await startGateway(writeBenchConfig(dir, true), up20.url, join(dir, 'loop-cache.jsonl'));
    servers.push(gw, gw500, gwCache);
    await new Promise((r) => setTimeout(r, 2000));
    const idleMiB = readMemory(gw.pid).rssKiB / 1024;
    const cases = [
      { label: 'plain', stream: false, bare: bare20, gw, n: N },
      { label: 'stream, 20 chunks', stream: true, bare: bare20, gw, n: N },
      { label: 'stream, 500 chunks', stream: true, bare: bare500, gw: gw500, n: Math.max(1000, Math.floor(N / 10)) },
      // A hit against the bare proxy's forwarded call: a hit should cost less than forwarding.
      { label: 'plain, response cache hit', stream: false, bare: bare20, gw: gwCache, n: N, hit: true },
      { label: 'stream, 20 chunks, response cache hit', stream: true, bare: bare20, gw: gwCache, n: N, hit: true },
    ];
    for (const c of cases) {
      const payload = body(model, c.stream);
      const [bare, gateway] = await measurePair(c.bare, c.gw, payload, c.n);
      // The same payload every time: once one answer says hit, every measured request after the first was one.
      if ('hit' in c) await assertCacheHit(c.gw, payload);
      rows.push({ label: c.label, bare: bare.us, gw: gateway.us, bareLoop: bare.loop, gwLoop: gateway.loop });
    }
    const peakMiB = Math.max(readMemory(gw.pid).hwmKiB, readMemory(gw500.pid).hwmKiB) / 1024;
    for (const s of [gw, gw500, gwCache, bare20, bare500]) await s.stop();
    const ms = (l: LoopDelay) => `${l.maxMs.toFixed(1)} (p99 ${l.p99Ms.toFixed(1)})`;
    const perChunk = ((rows[2]!.gw - rows[1]!.gw) - (rows[2]!.bare - rows[1]!.bare)) / 480;
    const lines = [
      `# CPU per request (${N} requests, ${CONC} connections; 500-chunk case ${cases[2]!.n}; model ${model}; ${pin ? 'server on core 0, load on core 1' : 'unpinned: taskset missing'})`,
      '',
      '| case | bare proxy µs/req | gateway µs/req | ratio | longest loop delay, bare proxy ms | longest loop delay, gateway ms |',
      '|---|---:|---:|---:|---:|---:|',
      ...rows.map((r) => `| ${r.label} | ${r.bare.toFixed(0)} | ${r.gw.toFixed(0)} | ${(r.gw / r.bare).toFixed(2)}x | ${ms(r.bareLoop)} | ${ms(r.gwLoop)} |`),
      '',
      '| gateway figure | value |',
      '|---|---:|',
      `| per-chunk CPU above the bare proxy (500 vs 20 chunks) | ${perChunk.toFixed(2)} µs |`,
      // The goal: a hit should cost less than a forwarded call (the gateway's own, same payload).
      `| response cache hit against the gateway's forwarded call, plain / stream of 20 | ${(rows[3]!.gw / rows[0]!.gw).toFixed(2)}x / ${(rows[4]!.gw / rows[1]!.gw).toFixed(2)}x |`,
      `| startup to ready (/readyz), shipped config, plain key, first start of the config | ${firstStart.startupMs.toFixed(0)} ms |`,
      `| startup to ready (/readyz), shipped config, plain key, restart with the same config | ${shipped.startupMs.toFixed(0)} ms |`,
      `| idle RSS, shipped config, plain key | ${shippedIdleMiB.toFixed(0)} MiB |`,
      `| startup to first /healthz answer, limited key (three other servers on the core) | ${gw.startupMs.toFixed(0)} ms |`,
      `| idle RSS, limited key (with the tokenizer's worker) | ${idleMiB.toFixed(0)} MiB |`,
      `| peak RSS, limited key | ${peakMiB.toFixed(0)} MiB |`,
    ];
    const out = lines.join('\n');
    console.log(out);
    writeFileSync(resolve(root, 'bench/cpu-results.md'), `${out}\n`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `npm run bench -- --interleave [--stream] [--concurrent] [--rounds N] <checkout>...`: the bare proxy and each
 * built checkout side by side on core 0 with the shipped config and a plain key (the yardstick's
 * setting), load from core 1 in bursts of BENCH_BURST requests to each in turn, CPU summed per
 * process. Drift of a shared machine hits every process alike, so two builds can be told apart
 * where consecutive runs of ../shared/bench/cpu-per-req.sh cannot (its ratios moved ±40% here).
 * Use an even number of rounds: the order alternates. A checkout given as `'<dir> --flag ...'`
 * runs under those node flags; a `.js` file runs as a server script (dist/bench/koa-floor.js: the
 * plain Koa app the issue names as this stack's floor).
 *
 * With `--concurrent`, each round loads every server at the same time instead of in turn (one
 * autocannon per server, all on core 1): the servers then share the same moments of the
 * machine, not only the same minutes, and a round's figures differ by what the builds do. Two
 * builds 3% apart read apart in every round here, where in-turn rounds moved ±10%. Every server
 * runs slower than alone (they share core 0 and its caches), which weighs memory-bound work more
 * than a lone server feels it: compare builds with it, and quote the yardstick for the ratio.
 */
async function interleave(args: string[]): Promise<void> {
  let stream = false;
  let concurrent = false;
  let rounds = 8;
  const checkouts: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--stream') stream = true;
    else if (args[i] === '--concurrent') concurrent = true;
    else if (args[i] === '--rounds') rounds = Number(args[++i]);
    else checkouts.push(args[i]!);
  }
  if (checkouts.length === 0) throw new Error('usage: npm run bench -- --interleave [--stream] [--concurrent] [--rounds N] <built checkout>...');
  const burst = Number(process.env.BENCH_BURST ?? 2500);
  const servers: Array<Server & { name: string; cpuMs: number }> = [];
  const helpers: Server[] = [];
  try {
    const upstream = await startReady(join(dist, 'bench/fake-upstream.js'), { BENCH_CHUNKS: '20' }, '1');
    helpers.push(upstream);
    servers.push({ ...(await startReady(join(dist, 'bench/bare-proxy.js'), { UPSTREAM: upstream.url }, '0')), name: 'bare proxy', cpuMs: 0 });
    for (const checkout of checkouts) {
      // `<dir> --flag ...`: the same checkout may run under other node flags.
      const [dir, ...nodeArgs] = checkout.split(/\s+/);
      servers.push({ ...(await startGatewayOf(resolve(dir!), nodeArgs, [], upstream.url, { GATEWAY_API_KEYS: KEY })), name: checkout, cpuMs: 0 });
    }
    const payload = body(chatModel(), stream);
    for (const s of servers) load(s.url, payload, 3000);
    for (let r = 0; r < rounds; r++) {
      if (concurrent) {
        const c0 = servers.map((s) => readCpuMs(s.pid));
        await Promise.all(servers.map((s) => loadAsync(s.url, payload, burst)));
        const line = servers.map((s, i) => {
          const ms = readCpuMs(s.pid) - c0[i]!;
          s.cpuMs += ms;
          return ((ms * 1000) / burst).toFixed(0);
        });
        console.log(`round ${r + 1}: ${line.join(' / ')} µs/req`);
        continue;
      }
      // Every other round runs the servers in reverse order: a server loaded right after another
      // finds the core's caches full of that one's data, and which one precedes which would
      // otherwise bias the comparison the same way every round.
      for (const s of r % 2 === 0 ? servers : [...servers].reverse()) {
        const c0 = readCpuMs(s.pid);
        load(s.url, payload, burst);
        s.cpuMs += readCpuMs(s.pid) - c0;
      }
    }
    const n = rounds * burst;
    console.log(`# ${concurrent ? 'concurrent' : 'interleaved'} CPU per request (${stream ? '20-chunk streams' : 'plain'}, ${rounds} rounds of ${burst}, ${CONC} connections${concurrent ? ' per server' : ''})\n`);
    console.log('| server | µs/req | ratio to the bare proxy | peak RSS |\n|---|---:|---:|---:|');
    for (const s of servers) console.log(`| ${s.name} | ${((s.cpuMs * 1000) / n).toFixed(0)} | ${(s.cpuMs / servers[0]!.cpuMs).toFixed(2)}x | ${(readMemory(s.pid).hwmKiB / 1024).toFixed(0)} MiB |`);
  } finally {
    await Promise.all([...servers, ...helpers].map((s) => s.stop()));
  }
}

const interleaveAt = process.argv.indexOf('--interleave');
if (interleaveAt >= 0) await interleave(process.argv.slice(interleaveAt + 1));
else await main();
