/** The load generator: autocannon's programmatic API, typed for what the benchmark reads. */
import { createRequire } from 'node:module';

/** Options of one autocannon run (the subset used here). */
export interface LoadOptions { url: string; connections: number; duration: number; method: 'POST'; headers: Record<string, string>; body: string }

/** What one run measured: autocannon's result fields the report uses. */
export interface LoadResult {
  /** Mean of autocannon's per-second request counts. */
  reqPerSec: number;
  totalRequests: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  timeouts: number;
}

interface Histogram { average: number; total: number; p50: number; p99: number }
interface AutocannonResult { requests: Histogram; latency: Histogram; non2xx: number; errors: number; timeouts: number }
type Autocannon = (options: LoadOptions & { timeout?: number }) => Promise<AutocannonResult>;

// autocannon is CommonJS without bundled types.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

/** Runs autocannon against one URL and returns its figures. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({ ...options, timeout: 10 });
  return {
    reqPerSec: result.requests.average,
    totalRequests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
