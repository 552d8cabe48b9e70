import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

/**
 * prom-client's Registry, Counter and Gauge and its default `process_*` / `nodejs_*` metrics,
 * without the rest of the package. Its index also loads the summary, the push gateway client
 * and the cluster aggregator (node:cluster), and one default collector (process CPU) loads
 * @opentelemetry/api for exemplars the gateway never enables: 33–42 ms of every start for the
 * index against ~4 ms for these files, of which the OpenTelemetry API alone was ~16 ms (it loads
 * with the tracing SDK when tracing is on). The collectors are prom-client's own files, called
 * as collectDefaultMetrics calls them; the process CPU counters are written here with the same
 * names, help and values. test/observability/prom-core.test.ts checks that these are
 * prom-client's own classes and that the metrics registered match collectDefaultMetrics' (names,
 * types, help), so an upgrade that moves or adds one fails there.
 */
const require = createRequire(import.meta.url);

/** prom-client's Registry. */
export const Registry = require('prom-client/lib/registry') as typeof PromClient.Registry;
/** A prom-client Registry. */
export type Registry = PromClient.Registry;
/** prom-client's Counter. */
export const Counter = require('prom-client/lib/counter') as typeof PromClient.Counter;
/** A prom-client Counter. */
export type Counter<T extends string = string> = PromClient.Counter<T>;
/** prom-client's Gauge. */
export const Gauge = require('prom-client/lib/gauge') as typeof PromClient.Gauge;
/** A prom-client Gauge. */
export type Gauge<T extends string = string> = PromClient.Gauge<T>;

type Collector = ((registry: PromClient.Registry, config: Record<string, unknown>) => void) & { metricNames: string[] };

/** prom-client's default collectors other than process CPU, in collectDefaultMetrics' order. */
const COLLECTORS = [
  'processStartTime',
  'osMemoryHeap',
  'processOpenFileDescriptors',
  'processMaxFileDescriptors',
  'eventLoopLag',
  ...(typeof process.getActiveResourcesInfo === 'function' ? ['processResources'] : []),
  'processHandles',
  'processRequests',
  'heapSizeAndUsed',
  'heapSpacesSizeAndUsed',
  'version',
  'gc',
];

/** Registers what prom-client's collectDefaultMetrics({ register }) registers, on `registry`. */
export function registerDefaultMetrics(registry: PromClient.Registry): void {
  registerProcessCpu(registry);
  const config = { eventLoopMonitoringPrecision: 10 };
  for (const name of COLLECTORS) (require(`prom-client/lib/metrics/${name}`) as Collector)(registry, config);
}

/** process_cpu_{user,system,}_seconds_total as prom-client writes them (without exemplars). */
function registerProcessCpu(registry: PromClient.Registry): void {
  const registers = [registry];
  let last = process.cpuUsage();
  // Registered first and in prom-client's order: the user counter's collect sets all three, and
  // a scrape collects in registration order.
  const user = new Counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
    registers,
    collect() {
      const now = process.cpuUsage();
      const userMicros = now.user - last.user;
      const systemMicros = now.system - last.system;
      last = now;
      user.inc(userMicros / 1e6);
      system.inc(systemMicros / 1e6);
      total.inc((userMicros + systemMicros) / 1e6);
    },
  });
  const system = new Counter({ name: 'process_cpu_system_seconds_total', help: 'Total system CPU time spent in seconds.', registers });
  const total = new Counter({ name: 'process_cpu_seconds_total', help: 'Total user and system CPU time spent in seconds.', registers });
}
