import { shuffleWeighted } from './pick.js';
import type { RouterSpec } from './targets.js';

/** What ordering by strategy needs to know of targets. */
export interface StrategyInputs {
  random?: () => number;
  /** Observed time to first token (ms), undefined when not measured yet. */
  ttftMs(id: string): number | undefined;
  /** Estimated USD of this request on a target, from catalog pricing. */
  costUsd(id: string): number;
}

/**
 * The order a router model tries its targets in: `fallback` as listed; `weighted` by weight at
 * random; `cheapest` by estimated cost of this request (ties keep list order); `fastest` the
 * targets never measured first (so each gets measured), then by observed time to first token.
 */
export function orderTargets(router: RouterSpec, inputs: StrategyInputs): string[] {
  const targets = router.targets;
  switch (router.strategy) {
    case 'weighted': return shuffleWeighted(targets, inputs.random).map((t) => t.id);
    case 'cheapest': return stableSort(targets.map((t) => t.id), (id) => inputs.costUsd(id));
    case 'fastest': return stableSort(targets.map((t) => t.id), (id) => inputs.ttftMs(id) ?? -1);
    default: return targets.map((t) => t.id);
  }
}

function stableSort(ids: string[], key: (id: string) => number): string[] {
  const keyed = ids.map((id, i) => ({ id, i, k: key(id) }));
  keyed.sort((a, b) => a.k - b.k || a.i - b.i);
  return keyed.map((x) => x.id);
}
