/**
 * `npm run bench:resilience`: the resilience case of issue 9 (not a test). Two deployments of
 * one provider (`openai` with `upstreams: primary, second`, weight 1:1) on 127.0.0.1, served by
 * the fake-upstream kit; the second fails half its calls at random (503). The gateway runs with
 * the shipped routing defaults (3 attempts, backoff 250..4000 ms with full jitter, breaker
 * 5/30 s/30 s). After a 2 s warm-up, autocannon loads chat completions for BENCH_RESILIENCE_S
 * seconds (default and at most 6) three times: both deployments healthy (baseline), then with
 * the failing one, then the same with breakers off (so every failure must be absorbed by a
 * retry: the hard case; 20 s of load in all). It prints the client
 * success rate (goal >= 99.9 %) and the latency the failures add (p50/p99), and writes
 * bench/resilience.md.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { TEST_KEY } from '../test/helpers/gateway.js';
import { startKitUpstreams, startScenarioGateway } from '../test/kit/routing-gateway.js';
import { ROUTING_DEFAULTS } from '../src/routing/policy.js';
import { runLoad, type LoadResult } from './load.js';

const SECONDS = Math.min(6, Number(process.env.BENCH_RESILIENCE_S ?? 6));
const WARMUP_S = 2;
const CONNECTIONS = 16;
const MODEL = 'openai/gpt-4.1-mini';

async function main(): Promise<void> {
  const kit = await startKitUpstreams();
  const providers = {
    openai: {
      upstreams: [
        { name: 'primary', weight: 1 },
        { name: 'second', api_key_env: 'OPENAI_API_KEY_2', base_url_env: 'OPENAI_BASE_URL_2', weight: 1 },
      ],
    },
  };
  const gw = await startScenarioGateway(kit, { routing: ROUTING_DEFAULTS, providers }, { LOG_LEVEL: 'silent' });
  const noBreaker = await startScenarioGateway(kit, { routing: { ...ROUTING_DEFAULTS, breaker: { failures: 1_000_000, window_s: 30, cooldown_s: 30 } }, providers }, { LOG_LEVEL: 'silent' });
  const load = (url: string, duration = SECONDS) => runLoad({
    url: `${url}/v1/chat/completions`,
    connections: CONNECTIONS,
    duration,
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'What is the capital of France?' }], max_tokens: 64 }),
  });
  const calls = () => {
    const c = { total: kit.openai.requests.length + kit.openai2.requests.length, second: kit.openai2.requests.length, failed: kit.openai2.requests.filter((r) => r.fault.status).length };
    kit.reset();
    return c;
  };
  try {
    await load(gw.url, WARMUP_S);
    await load(noBreaker.url, WARMUP_S / 2);
    calls();
    const baseline = await load(gw.url);
    const healthy = calls();
    kit.openai2.failRandomly(0.5, { status: 503 });
    const failing = await load(gw.url);
    const withBreaker = calls();
    kit.openai2.failRandomly(0.5, { status: 503 });
    const retried = await load(noBreaker.url);
    const withoutBreaker = calls();
    const report = render(baseline, failing, retried, { healthy, withBreaker, withoutBreaker });
    console.log(report);
    writeFileSync(resolve(process.cwd(), 'bench/resilience.md'), report);
  } finally {
    await gw.close();
    await noBreaker.close();
    await kit.close();
  }
}

function successRate(r: LoadResult): number {
  const ok = r.totalRequests - r.non2xx - r.errors - r.timeouts;
  return r.totalRequests === 0 ? 0 : (100 * ok) / r.totalRequests;
}

type Calls = { total: number; second: number; failed: number };

function render(baseline: LoadResult, failing: LoadResult, retried: LoadResult, calls: { healthy: Calls; withBreaker: Calls; withoutBreaker: Calls }): string {
  const row = (name: string, r: LoadResult, c: Calls) => `| ${name} | ${r.totalRequests} | ${successRate(r).toFixed(3)} % | ${r.non2xx + r.errors + r.timeouts} | ${r.reqPerSec.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.p50 - baseline.p50} / ${r.p99 - baseline.p99} | ${c.total} (${c.second} to second, ${c.failed} failed) |`;
  return [
    `# Resilience benchmark (${new Date().toISOString()})`,
    '',
    `Two deployments of \`openai\` (weight 1:1) on 127.0.0.1, ${CONNECTIONS} connections, ${SECONDS} s per run after a warm-up, chat`,
    `completions (${MODEL}, same-format passthrough), shipped routing defaults (3 attempts, backoff 250..4000 ms full jitter,`,
    'breaker 5 failures / 30 s / 30 s cooldown). In the failing runs deployment `second` answers 50 % of its calls 503 at random.',
    '',
    '| run | client requests | client success | client failures | req/s | p50 ms | p99 ms | added p50 / p99 ms | upstream calls |',
    '|---|---|---|---|---|---|---|---|---|',
    row('both healthy', baseline, calls.healthy),
    row('second fails 50 %, breaker on', failing, calls.withBreaker),
    row('second fails 50 %, breaker off', retried, calls.withoutBreaker),
    '',
    'With the breaker on, `second` is skipped once 5 of its calls fail in a row (then probed every 30 s); with it off, every failed',
    'call is retried on the other deployment after a jittered backoff, which is what the added p99 shows.',
    '',
  ].join('\n');
}

await main();
