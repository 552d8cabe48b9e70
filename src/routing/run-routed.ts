import { GatewayError } from '../errors/gateway-error.js';
import { TOTAL_DEADLINE } from '../upstream/call-upstream.js';
import { breakerOpen, planAllOpen } from './all-open.js';
import { withBudgetSkips } from './budget-skips.js';
import type { RoutedCall, Routed } from './routed-call.js';
import { runTarget, soonestOf, totalDeadline, type LoopState, type TargetRun } from './run-target.js';

export type { AttemptReport, RoutedCall, Routed } from './routed-call.js';

/**
 * The retry and fallback loop: targets in order; per target up to `retry.attempts` tries, each
 * to a healthy upstream of its provider (weighted, another one on retry), skipping targets that
 * cannot fit the budget; waits by backoff or Retry-After between tries. A breaker steers, it
 * never turns a model off: a target whose upstreams are all open is set aside while another
 * target can still be tried; when none can, the ones set aside are taken in the order their
 * cooldowns end (planAllOpen): tried as if closed (`when_all_open: try`, the default) or refused
 * with 503 upstream_circuit_open (`refuse`). It only runs before anything reached the client: an
 * attempt's answer is handed back as soon as it is usable. Throws the error to answer (the last
 * upstream failure, as the upstream gave it) when no target did.
 */
export async function runRouted<E, P, T>(call: RoutedCall<E, P, T>): Promise<Routed<E, P, T>> {
  const loop: LoopState = { stats: call.stats ?? { calls: 0 } };
  // Set aside targets; made on the first one only (the happy path allocates nothing here).
  let allOpen: Array<TargetRun<E>> | undefined;
  const targets = call.targets;
  for (let i = 0; i < targets.length; i++) {
    if (stopped(call)) break;
    const run: TargetRun<E> = { target: targets[i]!, attempt: 0, tried: new Set() };
    const end = await runTarget(call, loop, run, true);
    if (typeof end === 'object') return end;
    if (end === 'all_open') {
      (allOpen ??= []).push(run);
      if (i < targets.length - 1 || call.alternativesFollow) loop.firstReason ??= 'breaker_open';
    }
  }
  if (allOpen && !call.alternativesFollow && !stopped(call)) {
    const open = await Promise.all(allOpen.map(async (run) => ({ target: run, policy: run.target.policy, leftMs: (await soonestOf(call, run.target))?.leftMs ?? 0 })));
    for (const step of planAllOpen(open)) {
      if (stopped(call)) break;
      if (step.action === 'refuse') {
        loop.lastError ??= breakerOpen(step.target.target.id, step.leftMs);
        continue;
      }
      const end = await runTarget(call, loop, step.target, false);
      if (typeof end === 'object') return end;
    }
  }
  const error = loop.lastError ?? loop.budgetSkips?.[0]?.error ?? (allOpen ? breakerOpen(allOpen[0]!.target.id, 0) : new GatewayError(502, 'upstream_error', 'upstream_unreachable', 'No upstream could answer.'));
  throw loop.budgetSkips ? withBudgetSkips(error, loop.budgetSkips) : error;
}

/** Whether the client or the total deadline ended the request: no more attempts. */
function stopped<E, P, T>(call: RoutedCall<E, P, T>): boolean {
  if (!call.signal.aborted) return false;
  if (call.signal.reason === TOTAL_DEADLINE) throw totalDeadline();
  return true;
}
