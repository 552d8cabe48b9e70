import { expect } from 'chai';
import { createRequestEvents, type AttemptRecord } from '../../src/calls/request-record.js';
import { attemptReporter, routingHeaders } from '../../src/calls/routing-call.js';
import type { GatewayState } from '../../src/calls/state.js';

describe('calls/routing-call', () => {
  it('#attemptReporter emits one AttemptRecord per attempt, numbered, with the request id, and marks a request sent through an open breaker', () => {
    const events = createRequestEvents();
    const seen: AttemptRecord[] = [];
    events.subscribe({ attempt: (r) => seen.push({ ...r }) });
    const gw = { requestId: 'req-1', record: {} } as unknown as GatewayState;
    const onAttempt = attemptReporter(gw, events);
    onAttempt({ target: 'a/x', provider: 'a', upstream: 'primary', startedAt: 1, durationMs: 5, outcome: '503', retried: true, forced: false });
    onAttempt({ target: 'b/y', provider: 'b', upstream: 'default', startedAt: 7, durationMs: 3, outcome: 'ok', ttfbMs: 2, retried: false, forced: true });
    expect(seen).to.deep.equal([
      { requestId: 'req-1', attempt: 1, model: 'a/x', provider: 'a', upstream: 'primary', startedAt: 1, durationMs: 5, outcome: '503', ttfbMs: undefined, retried: true, forced: false },
      { requestId: 'req-1', attempt: 2, model: 'b/y', provider: 'b', upstream: 'default', startedAt: 7, durationMs: 3, outcome: 'ok', ttfbMs: 2, retried: false, forced: true },
    ]);
    expect(gw.record.breakerForced, 'the access log says the request went through an open breaker').to.equal(true);
  });

  it('#routingHeaders names the answering model, the calls made and the first failure', () => {
    const entry = { spec: { id: 'b/y' }, provider: { name: 'b' } };
    const routed = { value: 1, prepared: 1, upstream: { name: 'default', key: 'b/default', weight: 1 }, calls: 4, fallbackReason: '529', target: { id: 'b/y', provider: 'b', upstreams: [], policy: undefined as never, entry } };
    expect(routingHeaders(routed, ['seed'])).to.deep.equal({
      'x-gateway-model': 'b/y', 'x-gateway-provider': 'b', 'x-gateway-attempts': '4', 'x-gateway-fallback-reason': '529', 'x-gateway-dropped-params': 'seed',
    });
  });
});
