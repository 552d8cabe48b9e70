/** Outcome of counting one request against a limit. */
export interface RateDecision { allowed: boolean; remaining: number; /** Seconds until the window frees up (>= 1 when refused). */ retryAfterSeconds: number }

/** Counts requests per key in fixed windows. Memory here; a Redis one shares it across instances. */
export interface RateLimiter {
  hit(key: string, limit: number, windowSeconds: number, cost?: number): Promise<RateDecision>;
}

/** Fixed-window counter in process memory (one gateway instance). */
export function createMemoryRateLimiter(now: () => number = Date.now): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  let sweeps = 0;
  return {
    async hit(key, limit, windowSeconds, cost = 1) {
      const t = now();
      const span = windowSeconds * 1000;
      const start = Math.floor(t / span) * span;
      let w = windows.get(key);
      if (!w || w.start !== start) {
        w = { start, count: 0 };
        windows.set(key, w);
        if (++sweeps % 1024 === 0) for (const [k, v] of windows) if (v.start < start) windows.delete(k);
      }
      const retryAfterSeconds = Math.max(1, Math.ceil((start + span - t) / 1000));
      if (w.count + cost > limit) return { allowed: false, remaining: Math.max(0, limit - w.count), retryAfterSeconds };
      w.count += cost;
      return { allowed: true, remaining: limit - w.count, retryAfterSeconds };
    },
  };
}
