import type { RoutingSpec } from '../config/types.js';

/** The routing rules of one target model, merged at compile time (gateway -> provider -> model). */
export interface RoutingPolicy {
  readonly retry: {
    /** Total tries of one target, first included. */
    readonly attempts: number;
    readonly onStatus: ReadonlySet<number>;
    readonly onConnectError: boolean;
    readonly onTimeout: boolean;
    readonly backoffInitialMs: number;
    readonly backoffMaxMs: number;
    readonly retryAfterMaxMs: number;
  };
  readonly timeouts: { readonly connectMs: number; readonly firstByteMs: number; readonly idleMs: number; readonly totalMs: number };
  readonly breaker: {
    readonly failures: number;
    readonly windowMs: number;
    readonly cooldownMs: number;
    /** When every remaining target is open: `try` the one reopening first, or `refuse` (503). */
    readonly whenAllOpen: WhenAllOpen;
  };
}

/** `routing.breaker.when_all_open`: what a request does when every target it may still try is open. */
export type WhenAllOpen = 'try' | 'refuse';

/** The documented defaults of `routing` (issue 9). */
export const ROUTING_DEFAULTS = {
  retry: { attempts: 3, on: [429, 500, 502, 503, 504, 529, 'connect_error', 'timeout'], backoff_ms: { initial: 250, max: 4000 }, retry_after_max_s: 20 },
  timeouts: { connect_ms: 5000, first_byte_ms: 60_000, idle_ms: 60_000, total_ms: 600_000 },
  breaker: { failures: 5, window_s: 30, cooldown_s: 30, when_all_open: 'try' },
} as const satisfies RoutingSpec;

/**
 * Merges routing blocks, later ones winning key by key. `legacyTimeoutMs` (the provider's
 * `timeout_ms` or `server.upstream_timeout_ms`) stays the default of the first-byte and idle
 * deadlines, so configs written before `routing` existed keep their behaviour.
 */
export function resolvePolicy(layers: ReadonlyArray<RoutingSpec | undefined>, legacyTimeoutMs?: number): RoutingPolicy {
  const d = ROUTING_DEFAULTS;
  const pick = <T>(get: (s: RoutingSpec) => T | undefined, fallback: T): T => {
    let v = fallback;
    for (const l of layers) {
      const x = l ? get(l) : undefined;
      if (x !== undefined) v = x;
    }
    return v;
  };
  const on: ReadonlyArray<number | string> = pick<ReadonlyArray<number | string>>((s) => s.retry?.on, d.retry.on);
  const legacy = legacyTimeoutMs;
  return Object.freeze({
    retry: Object.freeze({
      attempts: pick<number>((s) => s.retry?.attempts, d.retry.attempts),
      onStatus: new Set(on.filter((x): x is number => typeof x === 'number')),
      onConnectError: on.includes('connect_error'),
      onTimeout: on.includes('timeout'),
      backoffInitialMs: pick<number>((s) => s.retry?.backoff_ms?.initial, d.retry.backoff_ms.initial),
      backoffMaxMs: pick<number>((s) => s.retry?.backoff_ms?.max, d.retry.backoff_ms.max),
      retryAfterMaxMs: pick<number>((s) => s.retry?.retry_after_max_s, d.retry.retry_after_max_s) * 1000,
    }),
    timeouts: Object.freeze({
      connectMs: pick<number>((s) => s.timeouts?.connect_ms, d.timeouts.connect_ms),
      firstByteMs: pick<number>((s) => s.timeouts?.first_byte_ms, legacy ?? d.timeouts.first_byte_ms),
      idleMs: pick<number>((s) => s.timeouts?.idle_ms, legacy ?? d.timeouts.idle_ms),
      totalMs: pick<number>((s) => s.timeouts?.total_ms, d.timeouts.total_ms),
    }),
    breaker: Object.freeze({
      failures: pick<number>((s) => s.breaker?.failures, d.breaker.failures),
      windowMs: pick<number>((s) => s.breaker?.window_s, d.breaker.window_s) * 1000,
      cooldownMs: pick<number>((s) => s.breaker?.cooldown_s, d.breaker.cooldown_s) * 1000,
      whenAllOpen: pick<WhenAllOpen>((s) => s.breaker?.when_all_open, d.breaker.when_all_open),
    }),
  });
}
