import type { Middleware } from 'koa';
import type { Env } from '../config/env.js';
import type { ObservabilitySpec } from '../config/types.js';
import type { RequestListener } from '../server/request-record.js';
import type { AppState } from '../server/state.js';

/** Request and upstream-attempt spans exported over OTLP. */
export interface Tracing {
  /** Koa step: opens the request span (child of an incoming `traceparent`) and runs the rest in its context. */
  readonly step: Middleware<AppState>;
  /** Ends request spans when the response has finished; records attempts on them. */
  readonly listener: RequestListener;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

/** Where spans go. */
export interface TracingTarget {
  /** Full OTLP/HTTP traces URL (`.../v1/traces`). */
  url: string;
  serviceName: string;
}

/**
 * The OTLP traces URL, or undefined when tracing is off. `observability.tracing.otlp_endpoint`
 * wins over the standard variables; a base URL gets `/v1/traces` appended like the OTel SDKs do.
 */
export function resolveTracesUrl(spec: ObservabilitySpec['tracing'], env: Env): string | undefined {
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = spec.otlp_endpoint ?? (signal ? undefined : env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (base) return /\/v1\/traces\/?$/.test(base) ? base : `${base.replace(/\/+$/, '')}/v1/traces`;
  return signal || undefined;
}

/**
 * Starts tracing when a target is configured. The OpenTelemetry SDK is imported only then, so
 * a gateway without tracing loads none of it and pays nothing per request.
 */
export async function startTracing(target: TracingTarget | undefined): Promise<Tracing | undefined> {
  if (!target) return undefined;
  const { createSdkTracing } = await import('./tracing-sdk.js');
  return createSdkTracing(target);
}
