import { Counter, Gauge, Registry, registerDefaultMetrics } from './prom-core.js';
import type { AttemptRecord, RequestListener } from '../calls/request-record.js';
import { toGenAiOperation } from './genai-names.js';
import type { BreakerState, ObservabilityHooks } from './hooks.js';
import { createFastCounter, createFastHistogram, type BoundCounter, type BoundHistogram } from './bound-metrics.js';
import { createLabelTree, type LabelKey } from './label-tree.js';

/** Prometheus metrics of one gateway process, fed by request lifecycle events. */
export interface GatewayMetrics {
  readonly registry: Registry;
  /** Non-request state: breaker changes, store errors. */
  readonly hooks: ObservabilityHooks;
  /** Subscribe to `shared.events`. */
  readonly listener: RequestListener;
  /** Where the in-flight gauges read their counts (the server's list of requests in flight). */
  watchInFlight(source: InFlightSource): void;
  /** The exposition text and its content type. */
  render(): Promise<{ body: string; contentType: string }>;
}

/** Counts of the requests in flight, read when the metrics are scraped. */
export interface InFlightSource {
  requests(): number;
  streams(): number;
}

/** Options read from `observability.metrics` at startup. */
export interface MetricsOptions {
  /** Label request metrics with the calling key's name. */
  keyLabel: boolean;
  /** Also collect prom-client's `process_*` and `nodejs_*` metrics (default true). */
  defaultMetrics?: boolean;
}

/**
 * Buckets advised by the GenAI semantic conventions
 * (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-metrics/).
 */
const OPERATION_DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const REQUEST_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const BREAKER_VALUES: Readonly<Record<BreakerState, number>> = { closed: 0, half_open: 1, open: 2 };

/** Children bound once per (route, operation, model, provider, status, key, requested model) seen. */
interface RequestChildren {
  requests: BoundCounter;
  duration: BoundHistogram;
  cost: BoundCounter;
  aborts: BoundCounter;
  /** GenAI children, present when the request named a model. */
  genAi?: {
    operationDuration: BoundHistogram;
    ttft: BoundHistogram;
    input: BoundHistogram;
    output: BoundHistogram;
    cachedInput: BoundHistogram;
    reasoning: BoundHistogram;
  };
}

interface AttemptChildren { attempts: BoundCounter; retries: BoundCounter; duration: BoundHistogram; forced?: BoundCounter }

/** Creates the metrics registry (one per process, not prom-client's global one). */
export function createGatewayMetrics(options: MetricsOptions): GatewayMetrics {
  const registry = new Registry();
  const registers = [registry];
  const keyLabels = options.keyLabel ? ['key'] : [];
  // Read at scrape time from the server's own list (no per-request Set here: see server/live-list.ts).
  let inFlight: InFlightSource = { requests: () => 0, streams: () => 0 };

  const requests = createFastCounter(registry, { name: 'gateway_requests_total', help: 'Requests answered, by route, operation, model, provider, status the client got and key.', labelNames: ['route', 'operation', 'model', 'provider', 'status', ...keyLabels] });
  const requestDuration = createFastHistogram(registry, { name: 'gateway_request_duration_seconds', help: 'Time from arrival to the last byte of the response (streams included), by route and status.', labelNames: ['route', 'status'], buckets: REQUEST_DURATION_BUCKETS });
  const cost = createFastCounter(registry, { name: 'gateway_cost_usd_total', help: 'Cost of answered requests in USD, by model, provider and key.', labelNames: ['model', 'provider', ...keyLabels] });
  const aborts = createFastCounter(registry, { name: 'gateway_client_aborts_total', help: 'Requests whose client went away before the response was complete, by route.', labelNames: ['route'] });
  const genAiLabels = ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model', 'gen_ai_response_model'];
  const operationDuration = createFastHistogram(registry, { name: 'gen_ai_client_operation_duration_seconds', help: 'GenAI operation duration (OpenTelemetry gen_ai.client.operation.duration) as the gateway served it.', labelNames: [...genAiLabels, 'error_type'], buckets: OPERATION_DURATION_BUCKETS });
  const ttft = createFastHistogram(registry, { name: 'gen_ai_server_time_to_first_token_seconds', help: 'Time to the first streamed byte of an answer (OpenTelemetry gen_ai.server.time_to_first_token).', labelNames: genAiLabels, buckets: TTFT_BUCKETS });
  const tokens = createFastHistogram(registry, { name: 'gen_ai_client_token_usage', help: 'Tokens per request by gen_ai_token_type: input, output, cached_input, reasoning (OpenTelemetry gen_ai.client.token.usage).', labelNames: [...genAiLabels, 'gen_ai_token_type'], buckets: TOKEN_BUCKETS });
  const attempts = createFastCounter(registry, { name: 'gateway_upstream_attempts_total', help: 'Upstream calls, by provider, upstream, model and outcome (ok, an HTTP status, connect_error, timeout, reset, aborted).', labelNames: ['provider', 'upstream', 'model', 'outcome'] });
  const retries = createFastCounter(registry, { name: 'gateway_upstream_retries_total', help: 'Upstream calls that were a retry or fallback of an earlier attempt of the same request.', labelNames: ['provider', 'upstream', 'model'] });
  const attemptDuration = createFastHistogram(registry, { name: 'gateway_upstream_attempt_duration_seconds', help: 'Duration of one upstream call, by provider, upstream and outcome.', labelNames: ['provider', 'upstream', 'outcome'], buckets: OPERATION_DURATION_BUCKETS });
  const fallbacks = new Counter({ name: 'gateway_fallbacks_total', help: 'Requests answered by another model than the one asked for, by requested model, answering model and reason.', labelNames: ['requested_model', 'model', 'reason'], registers });
  const forced = createFastCounter(registry, { name: 'gateway_breaker_forced_total', help: 'Upstream calls sent through an open breaker because every target the request could still try was open (routing.breaker.when_all_open: try), by provider, upstream and model.', labelNames: ['provider', 'upstream', 'model'] });
  const breaker = new Gauge({ name: 'gateway_breaker_state', help: 'Circuit breaker state per provider upstream: 0 closed, 1 half-open, 2 open.', labelNames: ['provider', 'upstream'], registers });
  const storeErrors = new Counter({ name: 'gateway_store_errors_total', help: 'Failed shared-store calls (served from memory or refused per store.on_error), by store.', labelNames: ['store'], registers });
  const cacheRequests = new Counter({ name: 'gateway_cache_requests_total', help: 'Model calls the response cache saw, by result: hit, semantic-hit, miss, store (no-cache refresh) or bypass.', labelNames: ['result'], registers });
  const cacheSaved = new Counter({ name: 'gateway_cache_saved_usd_total', help: 'What the answers served from the response cache cost when they were made (USD).', registers });
  new Gauge({ name: 'gateway_requests_in_flight', help: 'Requests received and not yet finished.', registers, collect() { this.set(inFlight.requests()); } });
  new Gauge({ name: 'gateway_streams_in_flight', help: 'Streamed responses in progress.', registers, collect() { this.set(inFlight.streams()); } });
  if (options.defaultMetrics !== false) registerDefaultMetrics(registry);

  const byRequest = createLabelTree<RequestChildren>(7, ([route, operation, model, provider, status, key, requestedModel]) => {
    const r = String(route).replace(/\.ya?ml$/, ''), op = String(operation), m = String(model), p = String(provider), s = String(status), k = String(key);
    const keyValues = options.keyLabel ? [k] : [];
    const children: RequestChildren = {
      requests: requests.bind([r, op, m, p, s, ...keyValues]),
      duration: requestDuration.bind([r, s]),
      cost: cost.bind([m, p, ...keyValues]),
      aborts: aborts.bind([r]),
    };
    if (m) {
      const genAi = [toGenAiOperation(op), p, String(requestedModel), m];
      const tokenChild = (type: string) => tokens.bind([...genAi, type]);
      children.genAi = {
        operationDuration: operationDuration.bind([...genAi, Number(s) >= 400 ? s : '']),
        ttft: ttft.bind([...genAi]),
        input: tokenChild('input'),
        output: tokenChild('output'),
        cachedInput: tokenChild('cached_input'),
        reasoning: tokenChild('reasoning'),
      };
    }
    return children;
  });
  const byAttempt = createLabelTree<AttemptChildren>(4, ([provider, upstream, model, outcome]) => {
    const p = String(provider), u = String(upstream), m = String(model), o = String(outcome);
    return { attempts: attempts.bind([p, u, m, o]), retries: retries.bind([p, u, m]), duration: attemptDuration.bind([p, u, o]) };
  });
  // Reused for every lookup (listeners run synchronously, one at a time).
  const scratch: LabelKey[] = ['', '', '', '', '', '', ''];

  const listener: RequestListener = {
    finished(r) {
      scratch[0] = r.route ?? '';
      scratch[1] = r.operation ?? '';
      scratch[2] = r.model ?? '';
      scratch[3] = r.provider ?? '';
      scratch[4] = r.status ?? 0;
      scratch[5] = options.keyLabel ? (r.keyName ?? '') : '';
      scratch[6] = r.requestedModel ?? r.model ?? '';
      const c = byRequest.get(scratch);
      c.requests.inc();
      const seconds = (r.durationMs ?? 0) / 1000;
      c.duration.observe(seconds);
      if (r.clientAborted) c.aborts.inc();
      if (r.costUsd) c.cost.inc(r.costUsd);
      if (r.cache) {
        cacheRequests.labels(r.cache).inc();
        if (r.savedUsd) cacheSaved.inc(r.savedUsd);
      }
      if (r.fallbackReason && r.requestedModel) fallbacks.labels(r.requestedModel, r.model ?? '', r.fallbackReason).inc();
      const g = c.genAi;
      if (!g) return;
      g.operationDuration.observe(seconds);
      if (r.streamed && r.ttfbMs !== undefined && (r.status ?? 0) < 400) g.ttft.observe(r.ttfbMs / 1000);
      const u = r.usage;
      if (!u) return;
      g.input.observe(u.input);
      g.output.observe(u.output);
      if (u.cachedInput) g.cachedInput.observe(u.cachedInput);
      if (u.reasoning) g.reasoning.observe(u.reasoning);
    },
    attempt(a: Readonly<AttemptRecord>) {
      scratch[0] = a.provider;
      scratch[1] = a.upstream;
      scratch[2] = a.model;
      scratch[3] = a.outcome;
      const c = byAttempt.get(scratch);
      c.attempts.inc();
      if (a.attempt > 1) c.retries.inc();
      // Bound on first use: no zero series for every upstream that was never forced.
      if (a.forced) (c.forced ??= forced.bind([a.provider, a.upstream, a.model])).inc();
      c.duration.observe(a.durationMs / 1000);
    },
  };

  return {
    registry,
    listener,
    hooks: {
      breakerStateChanged: (provider, upstream, state) => breaker.labels(provider, upstream).set(BREAKER_VALUES[state]),
      storeError: (store) => storeErrors.labels(store).inc(),
    },
    watchInFlight: (source) => { inFlight = source; },
    render: async () => ({ body: await registry.metrics(), contentType: registry.contentType }),
  };
}
