import type { Registry } from 'prom-client';

/** What prom-client's Registry reads from a metric (`get()`), for the families below. */
interface FamilySnapshot {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  values: Array<{ metricName?: string; labels: Record<string, string | number>; value: number }>;
}

/** A counter series bound to its label values: `inc` is a number addition. */
export interface BoundCounter { inc(by?: number): void }
/** A histogram series bound to its label values: `observe` finds a bucket and adds. */
export interface BoundHistogram { observe(value: number): void }

/** A counter family whose series are bound once (binding the same label values again returns the same series). */
export interface FastCounter { bind(labelValues: readonly string[]): BoundCounter }
/** A histogram family whose series are bound once (binding the same label values again returns the same series). */
export interface FastHistogram { bind(labelValues: readonly string[]): BoundHistogram }

interface Family { name: string; help: string; labelNames: readonly string[] }

/**
 * Why not prom-client's own Counter and Histogram: their `labels(...)` children re-validate and
 * re-hash the label values on every `inc`/`observe` (a string built per call, ~0.5 µs each on
 * this gateway's hot path, six times per request). These families keep each series' numbers in
 * a plain object the caller holds, and hand prom-client's Registry the same
 * `{name, help, type, values}` shape its own metrics produce, so the exposition text, JSON
 * output and default metrics all stay prom-client's.
 */
export function createFastCounter(registry: Registry, family: Family): FastCounter {
  const series: Array<{ labels: Record<string, string>; value: number }> = [];
  const bound = new Map<string, BoundCounter>();
  registerFamily(registry, family.name, () => ({
    name: family.name,
    help: family.help,
    type: 'counter',
    aggregator: 'sum',
    values: series.map((s) => ({ labels: s.labels, value: s.value })),
  }));
  return {
    bind(labelValues) {
      const id = labelValues.join('\u0000');
      let child = bound.get(id);
      if (child) return child;
      const s = { labels: labelsOf(family.labelNames, labelValues), value: 0 };
      series.push(s);
      child = { inc: (by = 1) => { s.value += by; } };
      bound.set(id, child);
      return child;
    },
  };
}

/** See createFastCounter; `buckets` are upper bounds in ascending order (`+Inf` is implied). */
export function createFastHistogram(registry: Registry, family: Family & { buckets: readonly number[] }): FastHistogram {
  const bounds = [...family.buckets];
  const series: Array<{ labels: Record<string, string>; counts: number[]; sum: number; count: number }> = [];
  const bound = new Map<string, BoundHistogram>();
  registerFamily(registry, family.name, () => {
    const values: FamilySnapshot['values'] = [];
    for (const s of series) {
      let cumulative = 0;
      for (let i = 0; i < bounds.length; i++) {
        cumulative += s.counts[i]!;
        values.push({ metricName: `${family.name}_bucket`, labels: { ...s.labels, le: bounds[i]! }, value: cumulative });
      }
      values.push({ metricName: `${family.name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      values.push({ metricName: `${family.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${family.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: family.name, help: family.help, type: 'histogram', aggregator: 'sum', values };
  });
  return {
    bind(labelValues) {
      const id = labelValues.join('\u0000');
      let child = bound.get(id);
      if (child) return child;
      const s = { labels: labelsOf(family.labelNames, labelValues), counts: new Array<number>(bounds.length).fill(0), sum: 0, count: 0 };
      series.push(s);
      child = {
        observe(value) {
          // Bucket counts are per bucket here and made cumulative at scrape time.
          for (let i = 0; i < bounds.length; i++) {
            if (value <= bounds[i]!) {
              s.counts[i] = s.counts[i]! + 1;
              break;
            }
          }
          s.sum += value;
          s.count += 1;
        },
      };
      bound.set(id, child);
      return child;
    },
  };
}

function labelsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  if (names.length !== values.length) throw new Error(`expected ${names.length} label values (${names.join(', ')}), got ${values.length}`);
  return Object.fromEntries(names.map((n, i) => [n, values[i]!]));
}

/** Registers an object with prom-client's metric interface (`name`, `get()`) in the registry. */
function registerFamily(registry: Registry, name: string, get: () => FamilySnapshot): void {
  registry.registerMetric({ name, get: async () => get() } as unknown as Parameters<Registry['registerMetric']>[0]);
}
