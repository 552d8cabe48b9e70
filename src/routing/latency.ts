/**
 * Observed time to first token per target model, as an exponential moving average (this
 * process's observations; `fastest` only needs a ranking, not an exact figure).
 */
export interface LatencyTracker {
  observe(id: string, ms: number): void;
  ttftMs(id: string): number | undefined;
}

/** Weight of a new observation in the moving average. */
const ALPHA = 0.2;

/** A latency tracker in memory. */
export function createLatencyTracker(): LatencyTracker {
  const avg = new Map<string, number>();
  return {
    observe(id, ms) {
      const prev = avg.get(id);
      avg.set(id, prev === undefined ? ms : prev + ALPHA * (ms - prev));
    },
    ttftMs: (id) => avg.get(id),
  };
}
