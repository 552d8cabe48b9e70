import { expect } from 'chai';
import { breakerOpen, countsAsBreakerFailure, planAllOpen, retryAfterSeconds, soonestToReopen } from '../../src/routing/all-open.js';
import { cooldownLeftMs, type BreakerState } from '../../src/routing/breaker.js';
import type { AttemptFailure } from '../../src/routing/outcome.js';
import { resolvePolicy } from '../../src/routing/policy.js';

const tryPolicy = resolvePolicy([]);
const refusePolicy = resolvePolicy([{ breaker: { when_all_open: 'refuse' } }]);
const status = (s: number, headers: Record<string, string> = {}): AttemptFailure => ({ kind: 'status', status: s, headers });

describe('routing/all-open: a breaker steers, it never turns a model off', () => {
  describe('#countsAsBreakerFailure', () => {
    const table: Array<[string, AttemptFailure, boolean]> = [
      ['500', status(500), true],
      ['502', status(502), true],
      ['503', status(503), true],
      ['504', status(504), true],
      ['529 (Anthropic overloaded)', status(529), true],
      ['408', status(408), true],
      ['a connect error', { kind: 'connect_error' }, true],
      ['a reset', { kind: 'reset' }, true],
      ['a first-byte timeout', { kind: 'timeout', phase: 'first_byte' }, true],
      ['an idle timeout', { kind: 'timeout', phase: 'idle' }, true],
      ['429 without Retry-After', status(429), true],
      ['429 with Retry-After', status(429, { 'retry-after': '2' }), false],
      ['429 with retry-after-ms', status(429, { 'retry-after-ms': '800' }), false],
      ['400', status(400), false],
      ['401', status(401), false],
      ['403', status(403), false],
      ['404', status(404), false],
      ['413', status(413), false],
      ['422', status(422), false],
      ['409', status(409), false],
      ['a client abort', { kind: 'aborted' }, false],
      ['a budget skip', { kind: 'budget' }, false],
    ];
    for (const [name, failure, counts] of table) {
      it(`${name} ${counts ? 'counts' : 'does not count'} against the upstream`, () => {
        expect(countsAsBreakerFailure(failure)).to.equal(counts);
      });
    }
  });

  describe('#cooldownLeftMs', () => {
    const b = tryPolicy.breaker;
    const table: Array<[string, BreakerState, number, number]> = [
      ['closed', { failures: 2, firstFailureAt: 0 }, 5000, 0],
      ['just opened', { failures: 5, firstFailureAt: 0, openedAt: 1000 }, 1000, 30_000],
      ['half way', { failures: 5, firstFailureAt: 0, openedAt: 1000 }, 16_000, 15_000],
      ['cooldown over', { failures: 5, firstFailureAt: 0, openedAt: 1000 }, 40_000, 0],
      ['probe in flight', { failures: 5, firstFailureAt: 0, openedAt: 1000, probeAt: 31_000 }, 32_000, 29_000],
    ];
    for (const [name, state, now, left] of table) {
      it(`${name}: ${left} ms`, () => expect(cooldownLeftMs(state, now, b)).to.equal(left));
    }
  });

  describe('#planAllOpen', () => {
    it('takes the target whose cooldown ends first first, ties in the request\'s order', () => {
      const plan = planAllOpen([
        { target: 'a', policy: tryPolicy, leftMs: 20_000 },
        { target: 'b', policy: tryPolicy, leftMs: 3_000 },
        { target: 'c', policy: tryPolicy, leftMs: 20_000 },
      ]);
      expect(plan.map((s) => s.target)).to.deep.equal(['b', 'a', 'c']);
      expect(plan.every((s) => s.action === 'try'), 'when_all_open defaults to try').to.equal(true);
    });
    it('refuses a target whose policy says `refuse`, with its cooldown left', () => {
      expect(planAllOpen([{ target: 'a', policy: refusePolicy, leftMs: 12_300 }, { target: 'b', policy: tryPolicy, leftMs: 20_000 }]))
        .to.deep.equal([{ action: 'refuse', target: 'a', leftMs: 12_300 }, { action: 'try', target: 'b' }]);
    });
    it('plans nothing for nothing', () => expect(planAllOpen([])).to.deep.equal([]));
  });

  describe('#soonestToReopen / #retryAfterSeconds / #breakerOpen', () => {
    it('picks the upstream reopening first (the first listed on a tie)', () => {
      expect(soonestToReopen([{ upstream: 'x', leftMs: 900 }, { upstream: 'y', leftMs: 100 }, { upstream: 'z', leftMs: 100 }])).to.deep.equal({ upstream: 'y', leftMs: 100 });
      expect(soonestToReopen([])).to.equal(undefined);
    });
    it('rounds a wait up to whole seconds, at least 1', () => {
      expect([retryAfterSeconds(0), retryAfterSeconds(1), retryAfterSeconds(1000), retryAfterSeconds(1001), retryAfterSeconds(29_400)]).to.deep.equal([1, 1, 1, 2, 30]);
    });
    it('answers 503 upstream_circuit_open with the seconds until the first cooldown ends', () => {
      const e = breakerOpen('openai/gpt-4.1-mini', 17_200);
      expect([e.status, e.code, e.headers?.['Retry-After']]).to.deep.equal([503, 'upstream_circuit_open', '18']);
      expect(e.message).to.include('openai/gpt-4.1-mini');
    });
  });
});
