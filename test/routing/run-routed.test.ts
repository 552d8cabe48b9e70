import { expect } from 'chai';
import { GatewayError } from '../../src/errors/gateway-error.js';
import { createMemoryBreakerStore } from '../../src/routing/breaker-store.js';
import type { UpstreamFailure } from '../../src/upstream/upstream-failure.js';
import { resolvePolicy } from '../../src/routing/policy.js';
import { runHedged } from '../../src/routing/run-hedged.js';
import { runRouted, type AttemptReport, type RoutedCall } from '../../src/routing/run-routed.js';
import type { RoutingTarget } from '../../src/routing/targets.js';
import type { AttemptTrace } from '../../src/upstream/call-upstream.js';

const policy = resolvePolicy([{ retry: { backoff_ms: { initial: 1, max: 2 } }, breaker: { failures: 50 } }]);
const target = (id: string, upstreams = ['a']): RoutingTarget<string> => ({
  id, provider: id.split('/')[0]!, policy, entry: id,
  upstreams: upstreams.map((u) => ({ name: u, key: `${id.split('/')[0]}/${u}`, weight: 1 })),
});

/** A scripted attempt: each call takes the next outcome (a failure or 'ok'). */
function scripted(outcomes: Array<UpstreamFailure | 'ok' | 'slow'>) {
  const seen: string[] = [];
  const attempt = async (t: RoutingTarget<string>, _p: unknown, u: { name: string }, trace: AttemptTrace, signal: AbortSignal): Promise<string> => {
    seen.push(`${t.id}@${u.name}`);
    trace.calls++;
    if (trace.total) trace.total.calls++;
    const o = outcomes.shift() ?? 'ok';
    if (o === 'slow') {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, 200);
        signal.addEventListener('abort', () => { clearTimeout(timer); reject(new Error('aborted')); }, { once: true });
      });
      return `${t.id}@${u.name}`;
    }
    if (o === 'ok') return `${t.id}@${u.name}`;
    trace.failure = o;
    throw new GatewayError(o.kind === 'status' ? o.status : 502, 'upstream_error', 'upstream_error', reasonText(o));
  };
  return { seen, attempt };
}
const reasonText = (o: UpstreamFailure) => (o.kind === 'status' ? String(o.status) : o.kind);
const fail = (status: number): UpstreamFailure => ({ kind: 'status', status, headers: {} });

function call(targets: RoutingTarget<string>[], attempt: RoutedCall<string, string, string>['attempt'], extra: Partial<RoutedCall<string, string, string>> = {}): RoutedCall<string, string, string> {
  return { targets, breaker: createMemoryBreakerStore(), signal: new AbortController().signal, prepare: async (t) => t.id, attempt, random: () => 0, ...extra };
}

describe('routing/run-routed', () => {
  describe('#runRouted', () => {
    it('retries a target on its other upstream, then answers, counting calls and the first reason', async () => {
      const s = scripted([fail(503)]);
      const reports: AttemptReport[] = [];
      const r = await runRouted(call([target('p/m', ['a', 'b'])], s.attempt, { onAttempt: (x) => reports.push(x) }));
      expect(s.seen).to.deep.equal(['p/m@a', 'p/m@b']);
      expect([r.value, r.calls, r.fallbackReason]).to.deep.equal(['p/m@b', 2, '503']);
      expect(reports.map((x) => [x.outcome, x.retried])).to.deep.equal([['503', true], ['ok', false]]);
    });

    it('moves to the next target when attempts are used up, and stops at once on a 400', async () => {
      const s = scripted([fail(529), fail(529), fail(529)]);
      const r = await runRouted(call([target('a/x'), target('b/y')], s.attempt));
      expect(s.seen).to.deep.equal(['a/x@a', 'a/x@a', 'a/x@a', 'b/y@a']);
      expect([r.target.id, r.calls, r.fallbackReason]).to.deep.equal(['b/y', 4, '529']);

      const bad = scripted([fail(400)]);
      const err = (await runRouted(call([target('a/x'), target('b/y')], bad.attempt)).catch((e: unknown) => e)) as GatewayError;
      expect(err.status).to.equal(400);
      expect(bad.seen).to.deep.equal(['a/x@a']);
    });

    it('skips a target whose budget does not fit, and one whose breaker is open', async () => {
      const breaker = createMemoryBreakerStore();
      for (let i = 0; i < 50; i++) await breaker.record('b/a', false, policy.breaker);
      const s = scripted([]);
      const released: string[] = [];
      const r = await runRouted(call([target('a/x'), target('b/y'), target('c/z')], s.attempt, {
        breaker,
        prepare: async (t) => { if (t.id === 'a/x') throw new GatewayError(400, 'invalid_request_error', 'budget_exceeded', 'too dear'); return t.id; },
        isBudgetError: (e) => (e as GatewayError).code === 'budget_exceeded',
        release: async (p) => { released.push(p); },
      }));
      expect(s.seen).to.deep.equal(['c/z@a']);
      expect([r.target.id, r.calls, r.fallbackReason]).to.deep.equal(['c/z', 1, 'budget']);
      expect(released, 'the skipped target\'s hold is released').to.deep.equal(['b/y']);
    });

    it('names a fallback skipped for budget in the primary\'s failure, with reason budget', async () => {
      const s = scripted([fail(503), fail(503), fail(503)]);
      const err = (await runRouted(call([target('a/x'), target('b/y')], s.attempt, {
        prepare: async (t) => { if (t.id === 'b/y') throw new GatewayError(400, 'invalid_request_error', 'budget_exceeded', 'too dear', { estimate_usd: 2, max_budget_usd: 1 }); return t.id; },
        isBudgetError: (e) => (e as GatewayError).code === 'budget_exceeded',
      })).catch((e: unknown) => e)) as GatewayError;
      expect([err.status, err.headers?.['x-gateway-fallback-reason']]).to.deep.equal([503, 'budget']);
      expect(err.message).to.include("'b/y' (worst case 2 USD > max_budget_usd 1 USD)");
    });

    it('sends a request whose only target is open through it, as its probe, and marks the call forced', async () => {
      const breaker = createMemoryBreakerStore();
      for (let i = 0; i < 50; i++) await breaker.record('a/a', false, policy.breaker);
      const s = scripted([]);
      const reports: AttemptReport[] = [];
      const r = await runRouted(call([target('a/x')], s.attempt, { breaker, onAttempt: (x) => reports.push(x) }));
      expect([r.value, r.calls, r.fallbackReason]).to.deep.equal(['a/x@a', 1, undefined]);
      expect(reports.map((x) => [x.outcome, x.forced])).to.deep.equal([['ok', true]]);
      expect(await breaker.check('a/a', policy.breaker), 'its success closed the breaker').to.equal('closed');
    });

    it('with `when_all_open: refuse` answers 503 upstream_circuit_open, Retry-After the seconds until the cooldown ends', async () => {
      const refuse = resolvePolicy([{ retry: { backoff_ms: { initial: 1, max: 2 } }, breaker: { failures: 2, cooldown_s: 30, when_all_open: 'refuse' } }]);
      let now = 1_000_000;
      const breaker = createMemoryBreakerStore(() => now);
      for (let i = 0; i < 2; i++) await breaker.record('a/a', false, refuse.breaker);
      now += 12_500;
      const s = scripted([]);
      const err = (await runRouted(call([{ ...target('a/x'), policy: refuse }], s.attempt, { breaker })).catch((e: unknown) => e)) as GatewayError;
      expect([err.status, err.code, err.headers?.['Retry-After']]).to.deep.equal([503, 'upstream_circuit_open', '18']);
      expect(s.seen, 'no upstream call').to.deep.equal([]);
    });

    it('skips an open target while a fallback can be tried, and comes back to it when the fallback fails', async () => {
      const breaker = createMemoryBreakerStore();
      for (let i = 0; i < 50; i++) await breaker.record('a/a', false, policy.breaker);
      const s = scripted([fail(500), fail(500), fail(500), 'ok']);
      const reports: AttemptReport[] = [];
      const r = await runRouted(call([target('a/x'), target('b/y')], s.attempt, { breaker, onAttempt: (x) => reports.push(x) }));
      expect(s.seen).to.deep.equal(['b/y@a', 'b/y@a', 'b/y@a', 'a/x@a']);
      expect([r.target.id, r.fallbackReason]).to.deep.equal(['a/x', 'breaker_open']);
      expect(reports.map((x) => x.forced)).to.deep.equal([false, false, false, true]);
    });

    it('when every target is open, tries the one whose cooldown ends first', async () => {
      let now = 1_000_000;
      const breaker = createMemoryBreakerStore(() => now);
      for (let i = 0; i < 50; i++) await breaker.record('a/a', false, policy.breaker);
      now += 10_000;
      for (let i = 0; i < 50; i++) await breaker.record('b/a', false, policy.breaker);
      now += 1_000;
      for (let i = 0; i < 50; i++) await breaker.record('c/a', false, policy.breaker);
      const s = scripted([fail(503), fail(503), fail(503)]);
      const r = await runRouted(call([target('b/y'), target('a/x'), target('c/z')], s.attempt, { breaker }));
      expect(s.seen, 'a/x opened first, so it reopens first').to.deep.equal(['a/x@a', 'a/x@a', 'a/x@a', 'b/y@a']);
      expect(r.target.id).to.equal('b/y');
    });

    it('keeps the count of attempts when a target opens mid-request, and answers the last upstream failure as it was', async () => {
      const tight = resolvePolicy([{ retry: { attempts: 3, backoff_ms: { initial: 1, max: 2 } }, breaker: { failures: 2 } }]);
      const s = scripted([fail(503), fail(503), fail(500)]);
      const reports: AttemptReport[] = [];
      const err = (await runRouted(call([{ ...target('a/x'), policy: tight }], s.attempt, { onAttempt: (x) => reports.push(x) })).catch((e: unknown) => e)) as GatewayError;
      expect(s.seen, 'three tries in all, the third through the open breaker').to.deep.equal(['a/x@a', 'a/x@a', 'a/x@a']);
      expect(reports.map((x) => x.forced)).to.deep.equal([false, false, true]);
      expect(err.status, 'the last upstream failure, not upstream_circuit_open').to.equal(500);
    });

    it('never counts the client\'s faults against an upstream: 4xx answers leave it closed', async () => {
      const tight = resolvePolicy([{ retry: { attempts: 1 }, breaker: { failures: 2 } }]);
      const breaker = createMemoryBreakerStore();
      for (const st of [400, 401, 403, 404, 413, 422]) {
        await runRouted(call([{ ...target('a/x'), policy: tight }], scripted([fail(st)]).attempt, { breaker })).catch(() => undefined);
      }
      await runRouted(call([{ ...target('a/x'), policy: tight }], scripted([{ kind: 'status', status: 429, headers: { 'retry-after': '1' } }]).attempt, { breaker })).catch(() => undefined);
      expect(await breaker.check('a/a', tight.breaker)).to.equal('closed');
      for (let i = 0; i < 2; i++) await runRouted(call([{ ...target('a/x'), policy: tight }], scripted([fail(503)]).attempt, { breaker })).catch(() => undefined);
      expect(await breaker.check('a/a', tight.breaker), 'two 503s do open it').to.equal('open');
    });
  });

  describe('#runHedged', () => {
    it('starts the next target when the first is slow, keeps the winner and aborts the other', async () => {
      const s = scripted(['slow', 'ok']);
      const r = await runHedged(call([target('a/x'), target('b/y')], s.attempt), 20);
      expect(r.value).to.equal('b/y@a');
      expect(r.fallbackReason).to.equal('hedge');
      expect(r.calls).to.equal(2);
      expect(s.seen).to.deep.equal(['a/x@a', 'b/y@a']);
    });

    it('is runRouted when the first target answers before the hedge', async () => {
      const s = scripted(['ok']);
      const r = await runHedged(call([target('a/x'), target('b/y')], s.attempt), 1000);
      expect([r.value, s.seen.length]).to.deep.equal(['a/x@a', 1]);
    });
  });
});
