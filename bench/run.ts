/**
 * `npm run bench`: loopback benchmark of the gateway (not a test). In one run, with autocannon at
 * 32 connections for BENCH_DURATION seconds per case (default 10, split in BENCH_ROUNDS = 2
 * interleaved windows, after BENCH_WARMUP = 2 s of warm-up), it loads chat completions plain
 * and streamed (20 chunks) on
 *   (a) the fake upstream alone, (b) a bare undici pass-through proxy, (c) the gateway with
 *   auth, validation and routing on (provider `openai` pointed at the fake), and
 *   (d) the gateway translating the same chat requests to an anthropic-messages upstream,
 * then prints a markdown table and writes bench/results.md. Each server is its own process;
 * CPU time and RSS come from /proc. BENCH_PROFILE=1 also runs the gateway under --cpu-prof and
 * lists its hottest functions. BENCH_CONFIG picks the config (default ./gateway.yaml).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';
import { readCpuMs, readMemory, sampleRss, spawnGateway, spawnReady, type Child } from './children.js';
import { CHUNKS } from './fake-upstream-shape.js';
import { runLoad, type LoadResult } from './load.js';
import { findNewestProfile, summarizeProfile } from './profile-top.js';
import { renderReport, type BenchReport, type CaseResult } from './report.js';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONNECTIONS = 32;
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const PROFILE = process.env.BENCH_PROFILE === '1';
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL ?? 'info';
const KEY = 'bench-key-0123456789abcdef';
const root = process.cwd();
const here = dirname(fileURLToPath(import.meta.url));
const configPath = resolve(root, process.env.BENCH_CONFIG ?? 'gateway.yaml');

/** The first chat model of a provider in the catalog that streams. */
function findChatModel(provider: string): string {
  const models = (parseDocument(readFileSync(configPath, 'utf8')).toJS() as { models?: Array<Record<string, unknown>> }).models ?? [];
  const model = models.find((m) => m.provider === provider && Array.isArray(m.endpoints) && m.endpoints.includes('/v1/chat/completions') && Array.isArray(m.parameters) && m.parameters.includes('stream'));
  if (!model) throw new Error(`no streaming chat model of provider '${provider}' in ${configPath}`);
  return String(model.id);
}

function chatBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    messages: [
      { role: 'system', content: 'You are a concise assistant.' },
      { role: 'user', content: 'Summarise the benefits of connection pooling for an HTTP client in two sentences.' },
    ],
    max_tokens: 256,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });
}

/** One request through each target before the load, so a broken setup fails fast and loudly. */
async function checkTarget(url: string, model: string): Promise<void> {
  const post = (stream: boolean) => fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: chatBody(model, stream) });
  const plain = await post(false);
  const body = await plain.text();
  if (plain.status !== 200 || !body.includes(' word19')) throw new Error(`${url} plain check failed: ${plain.status} ${body.slice(0, 300)}`);
  const stream = await post(true);
  const sse = await stream.text();
  const deltas = sse.split('\n').filter((l) => l.startsWith('data: {') && /"content":"( w|W)ord\d+"/.test(l)).length;
  if (stream.status !== 200 || deltas !== CHUNKS) throw new Error(`${url} stream check failed: ${stream.status}, ${deltas} content chunks: ${sse.slice(0, 300)}`);
}

/** A case to load: which process serves it, where, with which body. */
interface CaseSpec { id: string; label: string; target: Child; url: string; body: string }

/** One measured window of a case (CPU of the serving process read around it). */
interface Window { load: LoadResult; cpuMs: number; peakKiB: number; seconds: number }

function loadOptions(spec: CaseSpec, duration: number) {
  return { url: `${spec.url}/v1/chat/completions`, connections: CONNECTIONS, duration, method: 'POST' as const, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: spec.body };
}

async function measureWindow(spec: CaseSpec, seconds: number): Promise<Window> {
  const cpuBefore = readCpuMs(spec.target.pid);
  const rss = sampleRss(spec.target.pid);
  const load = await runLoad(loadOptions(spec, seconds));
  return { load, peakKiB: rss.stop(), cpuMs: readCpuMs(spec.target.pid) - cpuBefore, seconds };
}

/** Merges the windows of one case: requests and CPU summed, latency percentiles averaged. */
function mergeWindows(spec: CaseSpec, windows: Window[]): CaseResult {
  const sum = (f: (w: Window) => number) => windows.reduce((n, w) => n + f(w), 0);
  const mean = (f: (w: Window) => number) => sum(f) / windows.length;
  const totalRequests = sum((w) => w.load.totalRequests);
  const load: LoadResult = {
    reqPerSec: totalRequests / sum((w) => w.seconds),
    totalRequests,
    p50: mean((w) => w.load.p50),
    p99: mean((w) => w.load.p99),
    non2xx: sum((w) => w.load.non2xx),
    errors: sum((w) => w.load.errors),
    timeouts: sum((w) => w.load.timeouts),
  };
  const result: CaseResult = {
    id: spec.id,
    label: spec.label,
    server: spec.target.name,
    load,
    cpuUsPerRequest: (sum((w) => w.cpuMs) * 1000) / Math.max(1, totalRequests),
    peakRssMiB: Math.max(...windows.map((w) => w.peakKiB)) / 1024,
  };
  process.stderr.write(`  ${spec.label}: ${load.reqPerSec.toFixed(0)} req/s, p50 ${load.p50.toFixed(1)} ms, p99 ${load.p99.toFixed(1)} ms, ${result.cpuUsPerRequest.toFixed(0)} µs CPU/req\n`);
  return result;
}

/**
 * Measures the cases of one mode in ROUNDS interleaved windows (a, b, c, d, a, b, c, d ...) of
 * DURATION / ROUNDS seconds each, so a drift of background load on the machine hits every case
 * alike instead of whichever ran at the wrong moment.
 */
async function measureInterleaved(specs: CaseSpec[]): Promise<CaseResult[]> {
  for (const spec of specs) if (WARMUP > 0) await runLoad(loadOptions(spec, WARMUP));
  const windows = specs.map((): Window[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, spec] of specs.entries()) windows[i]!.push(await measureWindow(spec, DURATION / ROUNDS));
  }
  return specs.map((spec, i) => mergeWindows(spec, windows[i]!));
}

async function main(): Promise<void> {
  const started = Date.now();
  const openaiModel = findChatModel('openai');
  const anthropicModel = findChatModel('anthropic');
  // Under .gateway/ (git-ignored): profiles are tens of MB.
  const profileDir = resolve(root, '.gateway/bench-profiles');
  if (PROFILE) mkdirSync(profileDir, { recursive: true });

  const children: Child[] = [];
  try {
    const upstream = await spawnReady('fake upstream', join(here, 'fake-upstream.js'), {});
    children.push(upstream);
    const proxy = await spawnReady('bare undici proxy', join(here, 'bare-proxy.js'), { UPSTREAM: upstream.url });
    children.push(proxy);
    const gateway = await spawnGateway(resolve(root, 'dist/src/cli/main.js'), configPath, {
      GATEWAY_API_KEYS: KEY,
      OPENAI_API_KEY: 'sk-bench-openai',
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      ANTHROPIC_API_KEY: 'sk-bench-anthropic',
      ANTHROPIC_BASE_URL: upstream.url,
      LOG_LEVEL,
      GATEWAY_DISCOVERY_RPM: '1000000',
      GATEWAY_UPSTREAM_TIMEOUT_MS: '30000',
    }, KEY, PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
    children.push(gateway);

    for (const [url, model] of [[upstream.url, openaiModel], [proxy.url, openaiModel], [gateway.url, openaiModel], [gateway.url, anthropicModel]] as const) await checkTarget(url, model);
    process.stderr.write(`bench: ${CONNECTIONS} connections, ${DURATION} s per case (+${WARMUP} s warm-up), gateway log level ${LOG_LEVEL}\n`);

    const cases: CaseResult[] = [];
    for (const stream of [false, true]) {
      const mode = stream ? 'stream' : 'plain';
      const what = stream ? `chat streamed (${CHUNKS} chunks)` : 'chat plain';
      cases.push(...await measureInterleaved([
        { id: `upstream-${mode}`, label: `(a) upstream alone, ${what}`, target: upstream, url: upstream.url, body: chatBody(openaiModel, stream) },
        { id: `bare-${mode}`, label: `(b) bare undici proxy, ${what}`, target: proxy, url: proxy.url, body: chatBody(openaiModel, stream) },
        { id: `gateway-${mode}`, label: `(c) gateway ${openaiModel} (passthrough), ${what}`, target: gateway, url: gateway.url, body: chatBody(openaiModel, stream) },
        { id: `translated-${mode}`, label: `(d) gateway ${anthropicModel} (chat -> messages), ${what}`, target: gateway, url: gateway.url, body: chatBody(anthropicModel, stream) },
      ]));
    }

    const processPeaks: Record<string, number> = {};
    for (const child of children) processPeaks[`${child.name} (pid ${child.pid})`] = readMemory(child.pid).hwmKiB / 1024;
    processPeaks['autocannon client (this process)'] = process.resourceUsage().maxRSS / 1024;
    for (const child of children.splice(0).reverse()) await child.stop();

    const report: BenchReport = {
      environment: {
        date: new Date().toISOString(),
        node: process.version,
        cpu: `${cpus()[0]?.model ?? 'unknown'} x ${cpus().length}`,
        memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
        load: `autocannon, ${CONNECTIONS} connections, ${DURATION} s per case (${ROUNDS} interleaved windows of ${DURATION / ROUNDS} s) after ${WARMUP} s warm-up, 127.0.0.1 only`,
        config: `${configPath.startsWith(root) ? configPath.slice(root.length + 1) : configPath} (gateway log level ${LOG_LEVEL}, access log to /dev/null)`,
        'run time': `${((Date.now() - started) / 1000).toFixed(0)} s`,
      },
      cases,
      processPeaks,
      chunks: CHUNKS,
    };
    if (PROFILE) {
      const profile = findNewestProfile(profileDir);
      if (profile) report.profile = { file: profile.slice(root.length + 1), summary: summarizeProfile(profile, root) };
    }
    const markdown = renderReport(report);
    writeFileSync(resolve(root, 'bench/results.md'), markdown);
    process.stdout.write(`\n${markdown}\nWritten to bench/results.md\n`);
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
  process.exitCode = 1;
});
