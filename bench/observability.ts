/**
 * `node dist/bench/observability.js`: in-process cost of observability per request (not a test).
 * Feeds RequestRecords through the metrics listener (with in-flight tracking) and the access log
 * (pino writing to a discarding destination) and prints nanoseconds per request, so a change to
 * either shows up as a number rather than a guess. Tracing is off here, as it is by default.
 */
import { Writable } from 'node:stream';
import { createAccessLog } from '../src/observability/access-log.js';
import { createGatewayMetrics } from '../src/observability/metrics.js';
import { createLogger } from '../src/observability/logger.js';
import type { RequestRecord } from '../src/calls/request-record.js';

const N = Number(process.env.BENCH_N ?? 300_000);
const models = ['openai/gpt-4.1-mini', 'anthropic/claude-sonnet-4', 'sandbox/echo-1'];
const keys = ['ci', 'team-a', 'team-b', 'env-1'];

function recordOf(i: number): RequestRecord {
  return {
    requestId: `req_${i}`, startedAt: Date.now(), startedAtMonotonic: performance.now(), method: 'POST', path: '/v1/chat/completions', route: 'chat-completions.yaml',
    operation: 'chat.completions', keyId: keys[i % 4], keyName: keys[i % 4], model: models[i % 3], provider: models[i % 3]!.split('/')[0],
    attempts: 1, streamed: i % 2 === 0, usage: { input: 120, output: 48, cachedInput: 0, reasoning: 0, estimated: false },
    costUsd: 0.000216, ttfbMs: 41, durationMs: 180.4, status: 200, clientAborted: false,
  };
}

function measure(label: string, run: (r: RequestRecord) => void): void {
  const records = Array.from({ length: 1000 }, (_, i) => recordOf(i));
  for (let i = 0; i < 20_000; i++) run(records[i % 1000]!);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) run(records[i % 1000]!);
  const ns = Number(process.hrtime.bigint() - t0) / N;
  console.log(`| ${label} | ${ns.toFixed(0)} ns |`);
}

const metrics = createGatewayMetrics({ keyLabel: true });
const sink = new Writable({ write(_chunk, _enc, done) { done(); } });
const log = createAccessLog(createLogger('info', { destination: sink }));
console.log(`| per request (${N} requests) | cost |\n|---|---|`);
measure('metrics (finished)', (r) => { metrics.listener.finished!(r); });
measure('access log line (pino, discarded)', log);
measure('both', (r) => { metrics.listener.finished!(r); log(r); });
