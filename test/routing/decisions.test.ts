import { expect } from 'chai';
import { CLOSED, checkBreaker, recordBreaker, type BreakerState } from '../../src/routing/breaker.js';
import { createMemoryBreakerStore } from '../../src/routing/breaker-store.js';
import type { AttemptFailure } from '../../src/routing/outcome.js';
import { chooseUpstream, pickWeighted, shuffleWeighted } from '../../src/routing/pick.js';
import { resolvePolicy, ROUTING_DEFAULTS } from '../../src/routing/policy.js';
import { backoffMs, decideNext, isRetryable, retryAfterMs } from '../../src/routing/retry.js';
import { orderTargets } from '../../src/routing/strategy.js';
import type { UpstreamRef } from '../../src/routing/targets.js';

const policy = resolvePolicy([]);
const status = (s: number, headers: Record<string, string> = {}): AttemptFailure => ({ kind: 'status', status: s, headers });

describe('routing', () => {
  describe('#resolvePolicy', () => {
    it('has the documented defaults', () => {
      expect(policy.retry.attempts).to.equal(3);
      expect([...policy.retry.onStatus]).to.deep.equal([429, 500, 502, 503, 504, 529]);
      expect(policy.retry.onConnectError && policy.retry.onTimeout).to.equal(true);
      expect([policy.retry.backoffInitialMs, policy.retry.backoffMaxMs, policy.retry.retryAfterMaxMs]).to.deep.equal([250, 4000, 20_000]);
      expect(policy.timeouts).to.deep.equal({ connectMs: 5000, firstByteMs: 60_000, idleMs: 60_000, totalMs: 600_000 });
      expect(policy.breaker).to.deep.equal({ failures: 5, windowMs: 30_000, cooldownMs: 30_000, whenAllOpen: 'try' });
      expect(ROUTING_DEFAULTS.retry.on).to.include('timeout');
    });
    it('lets later layers win key by key, and the legacy timeout stand for first byte and idle', () => {
      const p = resolvePolicy([{ retry: { attempts: 5 } }, { retry: { backoff_ms: { max: 100 } }, timeouts: { idle_ms: 7 } }], 1234);
      expect(p.retry.attempts).to.equal(5);
      expect(p.retry.backoffMaxMs).to.equal(100);
      expect(p.retry.backoffInitialMs).to.equal(250);
      expect(p.timeouts.firstByteMs).to.equal(1234);
      expect(p.timeouts.idleMs).to.equal(7);
      expect(resolvePolicy([{ retry: { on: [503] } }]).retry.onTimeout).to.equal(false);
    });
  });

  describe('#isRetryable', () => {
    const table: Array<[AttemptFailure, boolean]> = [
      [status(429), true], [status(500), true], [status(502), true], [status(503), true], [status(504), true], [status(529), true],
      [status(400), false], [status(401), false], [status(403), false], [status(404), false], [status(422), false], [status(501), false],
      [{ kind: 'connect_error' }, true], [{ kind: 'reset' }, true], [{ kind: 'timeout', phase: 'first_byte' }, true],
      [{ kind: 'timeout', phase: 'connect' }, true], [{ kind: 'timeout', phase: 'total' }, false], [{ kind: 'aborted' }, false],
    ];
    for (const [failure, expected] of table) {
      it(`${expected ? 'retries' : 'does not retry'} ${JSON.stringify(failure)}`, () => expect(isRetryable(failure, policy)).to.equal(expected));
    }
    it('never retries 400/401/403/404/422 even when listed', () => {
      const p = resolvePolicy([{ retry: { on: [400, 401, 403, 404, 422] } }]);
      for (const s of [400, 401, 403, 404, 422]) expect(isRetryable(status(s), p)).to.equal(false);
    });
  });

  describe('#decideNext', () => {
    const half = () => 0.5;
    const table: Array<[string, AttemptFailure, number, string, number?]> = [
      ['429 with Retry-After: 2 waits 2 s', status(429, { 'retry-after': '2' }), 1, 'retry', 2000],
      ['retry-after-ms wins over Retry-After', status(429, { 'retry-after-ms': '150', 'retry-after': '9' }), 1, 'retry', 150],
      ['a Retry-After over retry_after_max_s moves on', status(429, { 'retry-after': '60' }), 1, 'next_target'],
      ['503 backs off with full jitter', status(503), 2, 'retry', 250],
      ['the last attempt moves on', status(503), 3, 'next_target'],
      ['a 400 stops', status(400), 1, 'stop'],
      ['a 422 stops', status(422), 1, 'stop'],
      ['a 401 (the provider key) moves on without a retry', status(401), 1, 'next_target'],
      ['a client abort stops', { kind: 'aborted' }, 1, 'stop'],
      ['the total deadline stops', { kind: 'timeout', phase: 'total' }, 1, 'stop'],
      ['an open breaker moves on', { kind: 'breaker_open' }, 1, 'next_target'],
      ['a budget that does not fit moves on', { kind: 'budget' }, 1, 'next_target'],
      ['a first-byte timeout retries', { kind: 'timeout', phase: 'first_byte' }, 1, 'retry', 125],
    ];
    for (const [title, failure, attempt, action, delay] of table) {
      it(title, () => {
        const step = decideNext(failure, attempt, policy, half, 0);
        expect(step.action).to.equal(action);
        if (delay !== undefined) expect((step as { delayMs: number }).delayMs).to.equal(delay);
      });
    }
  });

  describe('#backoffMs', () => {
    it('grows exponentially, capped by max, uniformly jittered from 0', () => {
      expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffMs(n, policy, () => 0.999999))).to.deep.equal([249, 499, 999, 1999, 3999, 3999, 3999]);
      expect(backoffMs(3, policy, () => 0)).to.equal(0);
    });
  });

  describe('#retryAfterMs', () => {
    it('reads seconds, milliseconds and HTTP dates; ignores garbage', () => {
      expect(retryAfterMs({ 'retry-after': '3' })).to.equal(3000);
      expect(retryAfterMs({ 'retry-after': '0.5' })).to.equal(500);
      expect(retryAfterMs({ 'retry-after-ms': '20' })).to.equal(20);
      expect(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 4000)).to.equal(6000);
      expect(retryAfterMs({ 'retry-after': 'soon' })).to.equal(undefined);
      expect(retryAfterMs({})).to.equal(undefined);
    });
  });

  describe('breaker', () => {
    const b = policy.breaker;
    const fail = (s: BreakerState, now: number) => recordBreaker(s, false, now, b);
    it('opens after `failures` in a row within the window', () => {
      let s: BreakerState = CLOSED;
      for (let i = 0; i < 4; i++) s = fail(s, 1000 + i);
      expect(checkBreaker(s, 2000, b).verdict).to.equal('closed');
      s = fail(s, 1005);
      expect(checkBreaker(s, 2000, b).verdict).to.equal('open');
    });
    it('starts counting again when the window has passed or a call succeeded', () => {
      let s: BreakerState = CLOSED;
      for (let i = 0; i < 4; i++) s = fail(s, 0);
      s = fail(s, 31_000);
      expect(s.failures).to.equal(1);
      expect(recordBreaker(s, true, 31_001, b)).to.equal(CLOSED);
    });
    it('lets one probe through after the cooldown; its failure re-opens, its success closes', () => {
      let s: BreakerState = { failures: 5, firstFailureAt: 0, openedAt: 0 };
      expect(checkBreaker(s, 29_999, b).verdict).to.equal('open');
      const probe = checkBreaker(s, 30_000, b);
      expect(probe.verdict).to.equal('probe');
      expect(checkBreaker(probe.next, 30_001, b).verdict, 'one probe at a time').to.equal('open');
      s = fail(probe.next, 30_002);
      expect(checkBreaker(s, 40_000, b).verdict).to.equal('open');
      expect(checkBreaker(s, 60_002, b).verdict).to.equal('probe');
      expect(recordBreaker(s, true, 60_003, b)).to.equal(CLOSED);
    });
    it('is kept per upstream by the memory store', async () => {
      let now = 0;
      const store = createMemoryBreakerStore(() => now);
      for (let i = 0; i < 5; i++) await store.record('p/a', false, b);
      expect(await store.check('p/a', b)).to.equal('open');
      expect(await store.check('p/b', b)).to.equal('closed');
      now = 30_000;
      expect(await store.check('p/a', b)).to.equal('probe');
      await store.record('p/a', true, b);
      expect(await store.check('p/a', b)).to.equal('closed');
    });
  });

  describe('#pickWeighted / #chooseUpstream', () => {
    const ups: UpstreamRef[] = [{ name: 'a', key: 'p/a', weight: 3 }, { name: 'b', key: 'p/b', weight: 1 }];
    it('honours weights', () => {
      expect(pickWeighted(ups, () => 0.74)!.name).to.equal('a');
      expect(pickWeighted(ups, () => 0.76)!.name).to.equal('b');
      let seq = 0;
      const counts = { a: 0, b: 0 };
      for (let i = 0; i < 4000; i++) counts[pickWeighted(ups, () => ((seq = (seq * 9301 + 49297) % 233280) / 233280))!.name as 'a' | 'b']++;
      expect(counts.a / counts.b).to.be.within(2.5, 3.5);
    });
    it('retries on an upstream not tried yet, skips open ones, and gives up when all are open', () => {
      expect(chooseUpstream(ups, new Set(['p/a']), new Set(), () => 0)!.name).to.equal('b');
      expect(chooseUpstream(ups, new Set(['p/a', 'p/b']), new Set(['p/b']), () => 0.99)!.name).to.equal('a');
      expect(chooseUpstream(ups, new Set(), new Set(['p/a', 'p/b']))).to.equal(undefined);
      expect(shuffleWeighted(ups, () => 0.9).map((u) => u.name)).to.deep.equal(['b', 'a']);
    });
  });

  describe('#orderTargets', () => {
    const router = { strategy: 'fallback' as const, targets: [{ id: 'x', weight: 1 }, { id: 'y', weight: 2 }, { id: 'z', weight: 1 }] };
    const inputs = { ttftMs: (id: string) => ({ x: 300, y: undefined, z: 100 })[id], costUsd: (id: string) => ({ x: 3, y: 2, z: 2 })[id]! };
    it('fallback keeps the listed order', () => expect(orderTargets(router, inputs)).to.deep.equal(['x', 'y', 'z']));
    it('cheapest sorts by estimated cost, ties in list order', () => expect(orderTargets({ ...router, strategy: 'cheapest' }, inputs)).to.deep.equal(['y', 'z', 'x']));
    it('fastest tries unmeasured targets first, then by TTFT', () => expect(orderTargets({ ...router, strategy: 'fastest' }, inputs)).to.deep.equal(['y', 'z', 'x']));
    it('weighted draws by weight', () => expect(orderTargets({ ...router, strategy: 'weighted' }, { ...inputs, random: () => 0.3 })[0]).to.equal('y'));
  });
});
