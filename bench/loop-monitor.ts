/**
 * Preloaded into the servers of the CPU benchmark (`node --import dist/bench/loop-monitor.js`):
 * records event-loop delay with perf_hooks.monitorEventLoopDelay. SIGUSR2 restarts the record
 * (the benchmark sends it once the server is ready, so startup's synchronous loading is not
 * counted but the first request is); on exit the figures go to BENCH_LOOP_FILE as JSON.
 *
 * The histogram holds the interval between two ticks of its own RESOLUTION_MS timer, so an idle
 * loop reads RESOLUTION_MS, not 0: the delay reported is that interval minus RESOLUTION_MS (how
 * late the tick came), as @fastify/under-pressure reports it.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const RESOLUTION_MS = 10;
const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
histogram.enable();
process.on('SIGUSR2', () => histogram.reset());
process.on('exit', () => {
  const file = process.env.BENCH_LOOP_FILE;
  if (!file) return;
  const late = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  writeFileSync(file, JSON.stringify({ maxMs: late(histogram.max), p99Ms: late(histogram.percentile(99)), meanMs: late(histogram.mean) }));
});
