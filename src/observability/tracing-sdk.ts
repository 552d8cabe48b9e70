import { context, createContextKey, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { AttemptRecord, RequestRecord } from '../calls/request-record.js';
import { toGenAiOperation } from './genai-names.js';
import type { Tracing, TracingTarget } from './tracing-api.js';

/** The request's record, carried in the OpenTelemetry context so upstream spans can read it. */
const RECORD_KEY = createContextKey('model-gateway.request-record');

interface OpenSpan { span: Span; record: RequestRecord; ctx: { method: string; _matchedRoute?: string | RegExp } }

/**
 * The SDK side of tracing, loaded only when tracing is on. One SERVER span per request (child
 * of the client's `traceparent` when it sent one) and, through the undici instrumentation, one
 * CLIENT span per upstream call, named and attributed per the GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/); the instrumentation
 * injects `traceparent` into the upstream request, so the provider continues the trace.
 */
export function createSdkTracing(target: TracingTarget): Tracing {
  // Context and propagator are process globals in the OpenTelemetry API; registering twice
  // (a second gateway in one process) keeps the first, which is equivalent.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': target.serviceName }),
    // Batched off the request path; shutdown() exports what is left.
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: target.url }))],
  });
  const tracer = provider.getTracer('model-gateway');
  const undici = new UndiciInstrumentation({
    requireParentforSpans: true,
    startSpanHook: () => upstreamAttributes(context.active().getValue(RECORD_KEY) as RequestRecord | undefined),
    requestHook: (span) => {
      const record = context.active().getValue(RECORD_KEY) as RequestRecord | undefined;
      if (record?.model) span.updateName(`${toGenAiOperation(record.operation)} ${record.model}`);
    },
  });
  undici.setTracerProvider(provider);
  undici.enable();
  const open = new WeakMap<RequestRecord, OpenSpan>();
  const byId = new Map<string, OpenSpan>();

  return {
    async step(ctx, next) {
      const record = ctx.state.record;
      const parent = propagation.extract(ROOT_CONTEXT, ctx.req.headers);
      const span = tracer.startSpan(ctx.method, {
        kind: SpanKind.SERVER,
        startTime: record.startedAt,
        attributes: { 'http.request.method': ctx.method, 'url.path': ctx.path, 'gateway.request_id': record.requestId },
      }, parent);
      const entry: OpenSpan = { span, record, ctx };
      open.set(record, entry);
      byId.set(record.requestId, entry);
      await context.with(trace.setSpan(parent, span).setValue(RECORD_KEY, record), next);
    },
    listener: {
      finished(r) {
        const entry = open.get(r as RequestRecord);
        if (!entry) return;
        open.delete(r as RequestRecord);
        if (byId.get(r.requestId) === entry) byId.delete(r.requestId);
        endRequestSpan(entry, r);
      },
      attempt(a) {
        const entry = byId.get(a.requestId);
        if (entry) entry.span.addEvent('gateway.upstream_attempt', attemptAttributes(a), a.startedAt + a.durationMs);
      },
    },
    async shutdown() {
      undici.disable();
      await provider.shutdown();
    },
  };
}

/** GenAI attributes of an upstream call, from the request it serves (none for non-model calls such as media fetches). */
function upstreamAttributes(record: RequestRecord | undefined): Attributes {
  if (!record?.model) return {};
  return {
    'gen_ai.operation.name': toGenAiOperation(record.operation),
    'gen_ai.request.model': record.model,
    'gen_ai.provider.name': record.provider ?? '',
    'gen_ai.system': record.provider ?? '',
    'gateway.request_id': record.requestId,
  };
}

function endRequestSpan({ span, ctx }: OpenSpan, r: Readonly<RequestRecord>): void {
  const route = typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : undefined;
  if (route) {
    span.updateName(`${ctx.method} ${route}`);
    span.setAttribute('http.route', route);
  }
  const status = r.status ?? 0;
  const attributes: Attributes = {
    'http.response.status_code': status,
    'gateway.attempts': r.attempts,
    'gateway.streamed': r.streamed,
    'gateway.client_aborted': r.clientAborted,
  };
  if (r.route) attributes['gateway.route'] = r.route;
  if (r.keyId) attributes['gateway.key_id'] = r.keyId;
  if (r.model) {
    attributes['gen_ai.operation.name'] = toGenAiOperation(r.operation);
    attributes['gen_ai.request.model'] = r.requestedModel ?? r.model;
    attributes['gen_ai.response.model'] = r.model;
  }
  if (r.provider) {
    attributes['gen_ai.provider.name'] = r.provider;
    attributes['gen_ai.system'] = r.provider;
  }
  if (r.usage) {
    attributes['gen_ai.usage.input_tokens'] = r.usage.input;
    attributes['gen_ai.usage.output_tokens'] = r.usage.output;
    attributes['gen_ai.usage.cache_read.input_tokens'] = r.usage.cachedInput;
    attributes['gateway.usage.reasoning_tokens'] = r.usage.reasoning;
  }
  if (r.costUsd !== undefined) attributes['gateway.cost_usd'] = r.costUsd;
  if (r.ttfbMs !== undefined) attributes['gateway.ttfb_ms'] = r.ttfbMs;
  if (r.fallbackReason) attributes['gateway.fallback_reason'] = r.fallbackReason;
  if (status >= 500) {
    attributes['error.type'] = r.errorCode ?? String(status);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.setAttributes(attributes);
  span.end(r.startedAt + (r.durationMs ?? 0));
}

function attemptAttributes(a: Readonly<AttemptRecord>): Attributes {
  const attributes: Attributes = {
    'gateway.attempt': a.attempt,
    'gen_ai.request.model': a.model,
    'gen_ai.provider.name': a.provider,
    'gateway.upstream': a.upstream,
    'gateway.outcome': a.outcome,
    'gateway.duration_ms': a.durationMs,
    'gateway.retried': a.retried,
  };
  if (a.ttfbMs !== undefined) attributes['gateway.ttfb_ms'] = a.ttfbMs;
  return attributes;
}
