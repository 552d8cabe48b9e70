import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Env } from '../config/env.js';
import type { GatewayConfig } from '../config/types.js';
import type { RequestEvents } from '../calls/request-record.js';
import type { AppState } from '../calls/state.js';
import { createAccessLog } from './access-log.js';
import type { ObservabilityHooks } from './hooks.js';
import { createGatewayMetrics, type GatewayMetrics, type InFlightSource } from './metrics.js';
import { resolveTracesUrl, startTracing, type Tracing } from './tracing.js';

/** Metrics, traces and the access log of one gateway process. */
export interface Observability {
  readonly metrics: GatewayMetrics;
  /** Set when tracing is on. */
  readonly tracing?: Tracing;
  /** For the routing and store modules: breaker state, store errors. */
  readonly hooks: ObservabilityHooks;
  /**
   * Subscribes the access log, metrics and traces to a process's request events; the in-flight
   * gauges read the server's own count.
   */
  attach(events: RequestEvents, logger: Logger, inFlight: InFlightSource): void;
  /** The step that runs right after track-request when tracing is on (the request span). */
  readonly step?: Middleware<AppState>;
  /** Exports buffered spans and stops. */
  close(): Promise<void>;
}

/**
 * Builds observability from config read at startup (`observability.metrics.key_label` and the
 * tracing endpoint take effect on restart; `metrics.public` is read per request).
 */
export async function createObservability(config: GatewayConfig, env: Env): Promise<Observability> {
  const metrics = createGatewayMetrics({ keyLabel: config.observability.metrics.key_label });
  const url = resolveTracesUrl(config.observability.tracing, env);
  const serviceName = config.observability.tracing.service_name ?? env.OTEL_SERVICE_NAME ?? 'model-gateway';
  const tracing = await startTracing(url ? { url, serviceName } : undefined);
  const attached = new WeakSet<RequestEvents>();
  return {
    metrics,
    tracing,
    hooks: metrics.hooks,
    step: tracing?.step,
    attach(events, logger, inFlight) {
      metrics.watchInFlight(inFlight);
      // An app rebuilt on reload attaches again: one set of listeners per event hub.
      if (attached.has(events)) return;
      attached.add(events);
      events.subscribe(metrics.listener);
      if (tracing) events.subscribe(tracing.listener);
      events.subscribe({ finished: createAccessLog(logger) });
    },
    close: async () => { await tracing?.shutdown(); },
  };
}

