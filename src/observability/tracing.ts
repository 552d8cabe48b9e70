import type { Env } from '../config/env.js';
import type { ObservabilitySpec } from '../config/types.js';
import type { Tracing, TracingTarget } from './tracing-api.js';

export type { Tracing, TracingTarget } from './tracing-api.js';

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
