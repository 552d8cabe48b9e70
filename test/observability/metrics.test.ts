import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { Registry } from 'prom-client';
import { createFastCounter, createFastHistogram } from '../../src/observability/bound-metrics.js';
import { createGatewayMetrics } from '../../src/observability/metrics.js';
import type { AttemptRecord, RequestRecord } from '../../src/calls/request-record.js';
import { parseSamples, samplesOf, valueOf } from './prometheus-text.js';

function record(over: Partial<RequestRecord> = {}): RequestRecord {
  return { requestId: 'req_1', startedAt: Date.now(), startedAtMonotonic: performance.now(), method: 'POST', path: '/v1/chat/completions', route: 'chat-completions.yaml', operation: 'chat.completions', attempts: 1, streamed: false, clientAborted: false, status: 200, durationMs: 120, keyId: 'team-a', keyName: 'team-a', ...over };
}

function attempt(over: Partial<AttemptRecord> = {}): AttemptRecord {
  return { requestId: 'req_1', attempt: 1, model: 'openai/gpt-4o', provider: 'openai', upstream: 'openai-east', startedAt: Date.now(), durationMs: 80, outcome: 'ok', retried: false, forced: false, ...over };
}

describe('observability: metrics', () => {
  describe('#createFastHistogram / #createFastCounter', () => {
    it('exposes cumulative buckets, +Inf, sum and count in prom-client\'s text format, one series per label set', async () => {
      const registry = new Registry();
      const h = createFastHistogram(registry, { name: 'x_seconds', help: 'x', labelNames: ['a'], buckets: [0.01, 0.05, 1] });
      const c = createFastCounter(registry, { name: 'y_total', help: 'y', labelNames: ['a', 'b'] });
      for (const v of [0.005, 0.02, 0.02, 100]) h.bind(['p']).observe(v);
      c.bind(['p', 'q']).inc();
      c.bind(['p', 'q']).inc(2.5);
      const text = await registry.metrics();
      expect(text).to.include('# TYPE x_seconds histogram').and.to.include('# TYPE y_total counter');
      const s = parseSamples(text);
      expect(samplesOf(s, 'x_seconds_bucket').map((x) => [x.labels.le, x.value])).to.deep.equal([['0.01', 1], ['0.05', 3], ['1', 3], ['+Inf', 4]]);
      expect(valueOf(s, 'x_seconds_sum', { a: 'p' })).to.equal(100.045);
      expect(valueOf(s, 'x_seconds_count', { a: 'p' })).to.equal(4);
      expect(samplesOf(s, 'y_total')).to.deep.equal([{ name: 'y_total', labels: { a: 'p', b: 'q' }, value: 3.5 }]);
    });
  });

  describe('#createGatewayMetrics', () => {
    it('counts upstream attempts by outcome, retries and their durations from attempt records', async () => {
      const m = createGatewayMetrics({ keyLabel: true, defaultMetrics: false });
      m.listener.attempt!(attempt({ outcome: '429', retried: true, durationMs: 30 }));
      m.listener.attempt!(attempt({ attempt: 2, outcome: 'ok', durationMs: 250 }));
      m.listener.attempt!(attempt({ attempt: 3, upstream: 'openai-west', outcome: 'timeout' }));
      const s = parseSamples((await m.render()).body);
      expect(valueOf(s, 'gateway_upstream_attempts_total', { provider: 'openai', upstream: 'openai-east', model: 'openai/gpt-4o', outcome: '429' })).to.equal(1);
      expect(valueOf(s, 'gateway_upstream_attempts_total', { upstream: 'openai-east', outcome: 'ok' })).to.equal(1);
      expect(valueOf(s, 'gateway_upstream_attempts_total', { upstream: 'openai-west', outcome: 'timeout' })).to.equal(1);
      expect(valueOf(s, 'gateway_upstream_retries_total', { upstream: 'openai-east' })).to.equal(1);
      expect(valueOf(s, 'gateway_upstream_retries_total', { upstream: 'openai-west' })).to.equal(1);
      expect(valueOf(s, 'gateway_upstream_attempt_duration_seconds_sum', { upstream: 'openai-east', outcome: 'ok' })).to.equal(0.25);
    });

    it('counts a fallback by requested model, answering model and reason, and labels GenAI metrics with both models', async () => {
      const m = createGatewayMetrics({ keyLabel: true, defaultMetrics: false });
      m.listener.finished!(record({ model: 'anthropic/claude', requestedModel: 'openai/gpt-4o', provider: 'anthropic', fallbackReason: '503', usage: { input: 5, output: 7, cachedInput: 3, reasoning: 2, estimated: false }, costUsd: 0.5 }));
      const s = parseSamples((await m.render()).body);
      expect(valueOf(s, 'gateway_fallbacks_total', { requested_model: 'openai/gpt-4o', model: 'anthropic/claude', reason: '503' })).to.equal(1);
      const genAi = { gen_ai_request_model: 'openai/gpt-4o', gen_ai_response_model: 'anthropic/claude', gen_ai_provider_name: 'anthropic' };
      expect(valueOf(s, 'gen_ai_client_token_usage_sum', { ...genAi, gen_ai_token_type: 'cached_input' })).to.equal(3);
      expect(valueOf(s, 'gen_ai_client_token_usage_sum', { ...genAi, gen_ai_token_type: 'reasoning' })).to.equal(2);
      expect(valueOf(s, 'gateway_cost_usd_total', { model: 'anthropic/claude', key: 'team-a' })).to.equal(0.5);
    });

    it('labels 5xx GenAI durations with error_type and counts client aborts', async () => {
      const m = createGatewayMetrics({ keyLabel: false, defaultMetrics: false });
      m.listener.finished!(record({ model: 'openai/gpt-4o', provider: 'openai', status: 502 }));
      m.listener.finished!(record({ model: 'openai/gpt-4o', provider: 'openai', status: 200, clientAborted: true, streamed: true }));
      const s = parseSamples((await m.render()).body);
      expect(valueOf(s, 'gen_ai_client_operation_duration_seconds_count', { error_type: '502' })).to.equal(1);
      expect(valueOf(s, 'gen_ai_client_operation_duration_seconds_count', { error_type: '' })).to.equal(1);
      expect(valueOf(s, 'gateway_client_aborts_total', { route: 'chat-completions' })).to.equal(1);
      expect(valueOf(s, 'gen_ai_server_time_to_first_token_seconds_count'), 'no ttfb recorded').to.equal(0);
    });

    it('exposes breaker state and store errors fed through its hooks', async () => {
      const m = createGatewayMetrics({ keyLabel: true, defaultMetrics: false });
      m.hooks.breakerStateChanged('openai', 'openai-east', 'open');
      m.hooks.breakerStateChanged('openai', 'openai-west', 'half_open');
      m.hooks.breakerStateChanged('openai', 'openai-west', 'closed');
      m.hooks.storeError('redis');
      m.hooks.storeError('redis');
      const s = parseSamples((await m.render()).body);
      expect(valueOf(s, 'gateway_breaker_state', { upstream: 'openai-east' })).to.equal(2);
      expect(valueOf(s, 'gateway_breaker_state', { upstream: 'openai-west' })).to.equal(0);
      expect(valueOf(s, 'gateway_store_errors_total', { store: 'redis' })).to.equal(2);
    });

    it('reads the in-flight requests and streams from the source it watches, at each scrape', async () => {
      const m = createGatewayMetrics({ keyLabel: true, defaultMetrics: false });
      const live = [record({ requestId: 'a' }), record({ requestId: 'b', streamed: true })];
      m.watchInFlight({ requests: () => live.length, streams: () => live.filter((r) => r.streamed).length });
      let s = parseSamples((await m.render()).body);
      expect([valueOf(s, 'gateway_requests_in_flight'), valueOf(s, 'gateway_streams_in_flight')]).to.deep.equal([2, 1]);
      live.pop();
      s = parseSamples((await m.render()).body);
      expect([valueOf(s, 'gateway_requests_in_flight'), valueOf(s, 'gateway_streams_in_flight')]).to.deep.equal([1, 0]);
    });

    it('reuses the children bound for a label combination (one series per combination)', async () => {
      const m = createGatewayMetrics({ keyLabel: true, defaultMetrics: false });
      for (let i = 0; i < 100; i++) m.listener.finished!(record({ model: 'openai/gpt-4o', provider: 'openai' }));
      const s = parseSamples((await m.render()).body);
      expect(samplesOf(s, 'gateway_requests_total')).to.have.length(1);
      expect(valueOf(s, 'gateway_requests_total')).to.equal(100);
    });
  });

  describe('README "Operating"', () => {
    it('lists exactly the metrics the registry exposes', async () => {
      const readme = readFileSync('README.md', 'utf8');
      const section = /^## Operating\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1];
      expect(section, 'README has an "## Operating" section').to.be.a('string');
      const table = /^### Metrics\n([\s\S]*?)(?=^### )/m.exec(section!)?.[1] ?? '';
      const documented = [...table.matchAll(/^\| `([a-z_:]+)` \|/gm)].map((x) => x[1]!).sort();
      const m = createGatewayMetrics({ keyLabel: true, defaultMetrics: false });
      const registered = (await m.registry.getMetricsAsJSON()).map((x) => x.name).sort();
      expect(documented).to.deep.equal(registered);
      const withDefaults = createGatewayMetrics({ keyLabel: true });
      const defaults = (await withDefaults.registry.getMetricsAsJSON()).map((x) => x.name).filter((n) => !registered.includes(n));
      expect(defaults.length).to.be.greaterThan(5);
      for (const name of defaults) expect(name, 'default metrics are the documented process_*/nodejs_* group').to.match(/^(process|nodejs)_/);
    });
  });
});
