import type { UpstreamRef } from './targets.js';

/** Picks one item by weight (weights > 0); undefined for an empty list. */
export function pickWeighted<T extends { readonly weight: number }>(items: readonly T[], random: () => number = Math.random): T | undefined {
  if (items.length <= 1) return items[0];
  let total = 0;
  for (const it of items) total += it.weight;
  let r = random() * total;
  for (const it of items) {
    r -= it.weight;
    if (r < 0) return it;
  }
  return items[items.length - 1];
}

/**
 * Orders items by weight at random (each next one picked by weight among those left), so a
 * weighted router both spreads load by weight and still has every target to fall back to.
 */
export function shuffleWeighted<T extends { readonly weight: number }>(items: readonly T[], random: () => number = Math.random): T[] {
  const left = [...items];
  const out: T[] = [];
  while (left.length > 0) {
    const next = pickWeighted(left, random)!;
    out.push(next);
    left.splice(left.indexOf(next), 1);
  }
  return out;
}

/**
 * The upstream of a provider the next attempt goes to: by weight among those not tried yet for
 * this target and not known open; once all were tried, any not open (a retry of the only one).
 */
export function chooseUpstream(upstreams: readonly UpstreamRef[], tried: ReadonlySet<string>, open: ReadonlySet<string>, random: () => number = Math.random): UpstreamRef | undefined {
  if (upstreams.length === 1) return open.has(upstreams[0]!.key) ? undefined : upstreams[0];
  const fresh = upstreams.filter((u) => !tried.has(u.key) && !open.has(u.key));
  if (fresh.length > 0) return pickWeighted(fresh, random);
  return pickWeighted(upstreams.filter((u) => !open.has(u.key)), random);
}
