/**
 * Preloaded into the servers of the CPU benchmark (`node --import dist/bench/loop-monitor.js`):
 * records event-loop delay with perf_hooks.monitorEventLoopDelay. Each SIGUSR2 appends the figures
 * recorded since the previous one to BENCH_LOOP_FILE as one JSON line and starts a new record, so
 * the benchmark can read the delay of each case on the server that carried its load (every server
 * shares core 0: an idle server's timer waits while another one is loaded, which says nothing
 * about the idle one).
 *
 * The histogram holds the interval between two ticks of its own RESOLUTION_MS timer, so an idle
 * loop reads RESOLUTION_MS, not 0: the delay reported is that interval minus RESOLUTION_MS (how
 * late the tick came), as @fastify/under-pressure reports it.
 */
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const RESOLUTION_MS = 10;
const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
histogram.enable();
process.on('SIGUSR2', () => {
  const file = process.env.BENCH_LOOP_FILE;
  const late = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  if (file) appendFileSync(file, `${JSON.stringify({ maxMs: late(histogram.max), p99Ms: late(histogram.percentile(99)), meanMs: late(histogram.mean) })}\n`);
  histogram.reset();
});
