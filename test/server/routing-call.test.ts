import { expect } from 'chai';
import { createRequestEvents, type AttemptRecord } from '../../src/server/request-record.js';
import { routingHeaders, routingLoopServices } from '../../src/server/routing-call.js';
import { createMemoryBreakerStore } from '../../src/routing/breaker-store.js';
import { createLatencyTracker } from '../../src/routing/latency.js';
import type { GatewayState } from '../../src/server/state.js';
import { RequestAbort } from '../../src/upstream/request-abort.js';

describe('server/routing-call', () => {
  it('#routingLoopServices emits one AttemptRecord per attempt, numbered, with the request id', () => {
    const events = createRequestEvents();
    const seen: AttemptRecord[] = [];
    events.subscribe({ attempt: (r) => seen.push({ ...r }) });
    const gw = { requestId: 'req-1', abort: new RequestAbort() } as unknown as GatewayState;
    const loop = routingLoopServices(gw, { events, breaker: createMemoryBreakerStore(), latency: createLatencyTracker() });
    loop.onAttempt({ target: 'a/x', provider: 'a', upstream: 'primary', startedAt: 1, durationMs: 5, outcome: '503', retried: true });
    loop.onAttempt({ target: 'b/y', provider: 'b', upstream: 'default', startedAt: 7, durationMs: 3, outcome: 'ok', ttfbMs: 2, retried: false });
    expect(seen).to.deep.equal([
      { requestId: 'req-1', attempt: 1, model: 'a/x', provider: 'a', upstream: 'primary', startedAt: 1, durationMs: 5, outcome: '503', ttfbMs: undefined, retried: true },
      { requestId: 'req-1', attempt: 2, model: 'b/y', provider: 'b', upstream: 'default', startedAt: 7, durationMs: 3, outcome: 'ok', ttfbMs: 2, retried: false },
    ]);
    expect(loop.signal).to.equal(gw.abort);
  });

  it('#routingHeaders names the answering model, the calls made and the first failure', () => {
    const entry = { spec: { id: 'b/y' }, provider: { name: 'b' } };
    const routed = { value: 1, prepared: 1, upstream: { name: 'default', key: 'b/default', weight: 1 }, calls: 4, fallbackReason: '529', target: { id: 'b/y', provider: 'b', upstreams: [], policy: undefined as never, entry } };
    expect(routingHeaders(routed, ['seed'])).to.deep.equal({
      'x-gateway-model': 'b/y', 'x-gateway-provider': 'b', 'x-gateway-attempts': '4', 'x-gateway-fallback-reason': '529', 'x-gateway-dropped-params': 'seed',
    });
  });
});
