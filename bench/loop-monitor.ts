/**
 * Preloaded into the gateway by the CPU benchmark (`node --import dist/bench/loop-monitor.js`):
 * records event-loop delay with perf_hooks.monitorEventLoopDelay. SIGUSR2 restarts the record
 * (the benchmark sends it once the server is ready, so startup's synchronous loading is not
 * counted but the first request is); on exit the figures go to BENCH_LOOP_FILE as JSON.
 */
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
process.on('SIGUSR2', () => histogram.reset());
process.on('exit', () => {
  const file = process.env.BENCH_LOOP_FILE;
  if (!file) return;
  writeFileSync(file, JSON.stringify({ maxMs: histogram.max / 1e6, p99Ms: histogram.percentile(99) / 1e6, meanMs: histogram.mean / 1e6 }));
});
