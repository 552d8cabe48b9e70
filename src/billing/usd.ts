/**
 * Money helpers. Costs are computed in USD as numbers and stored (spend ledgers, Redis) as
 * integer nano-dollars (1e-9 USD), so sums never drift and Lua scripts add integers only.
 */

/** Nano-dollars per dollar. */
export const NANO_PER_USD = 1e9;

/** USD -> integer nano-dollars, rounding up (a reservation is never smaller than the amount). */
export function toNanoUsdCeil(usd: number): number {
  if (!Number.isFinite(usd)) return Number.MAX_SAFE_INTEGER;
  return Math.max(0, Math.ceil(roundUsd(usd) * NANO_PER_USD - 1e-6));
}

/** USD -> integer nano-dollars, to the nearest. */
export function toNanoUsd(usd: number): number {
  if (!Number.isFinite(usd)) return Number.MAX_SAFE_INTEGER;
  return Math.max(0, Math.round(usd * NANO_PER_USD));
}

/** Integer nano-dollars -> USD. */
export function fromNanoUsd(nano: number): number {
  return roundUsd(nano / NANO_PER_USD);
}

/** Rounds to 1e-10 USD, removing float noise such as 0.30000000000000004. */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1e10) / 1e10;
}

/** A USD amount as a plain decimal string (never exponent notation), e.g. `0.00012`. */
export function formatUsd(usd: number): string {
  const rounded = roundUsd(Math.max(0, usd));
  // From 1e-6 JavaScript writes a plain decimal, the shortest that reads back: for an amount
  // rounded to 10 decimals and under 1e4 (at most 14 digits) that is toFixed's without its
  // trailing zeros. Smaller amounts would be written in exponent notation, larger ones may not
  // match toFixed's digits: both take the general path.
  if (rounded >= 1e-6 && rounded < 1e4) return String(rounded);
  const fixed = rounded.toFixed(10);
  return fixed.replace(/\.?0+$/, '') || '0';
}
