/**
 * Catalog prices, parsed once per model at startup. gateway.yaml writes them as OpenRouter does
 * on its model cards (https://openrouter.ai/docs/api-reference/list-available-models): USD per
 * unit as decimal strings. Keys the gateway does not bill by are ignored here (lint checks them).
 */

/** Every unit the gateway bills by, in the order costs are itemized. */
export const PRICING_UNITS = [
  'prompt',
  'completion',
  'input_cache_read',
  'input_cache_write',
  'internal_reasoning',
  'request',
  'image',
  'audio_second',
  'video_second',
  'character',
  'search_unit',
] as const;

/** One billing unit (a key of catalog `pricing`). */
export type PricingUnit = (typeof PRICING_UNITS)[number];

/** USD per unit, as numbers; a unit that is absent is not billed. */
export type Pricing = Readonly<Partial<Record<PricingUnit, number>>>;

/** Quantities per unit (tokens, images, seconds ...). */
export type Units = Partial<Record<PricingUnit, number>>;

const KNOWN = new Set<string>(PRICING_UNITS);

/**
 * Parses catalog pricing strings. Values that are not finite, non-negative decimals are left
 * out (lint reports them as malformed prices), so a bad price never bills a negative amount.
 */
export function parsePricing(raw: Readonly<Record<string, string>> | undefined): Pricing {
  const out: Partial<Record<PricingUnit, number>> = {};
  if (!raw) return Object.freeze(out);
  for (const [unit, text] of Object.entries(raw)) {
    if (!KNOWN.has(unit)) continue;
    const value = typeof text === 'number' ? text : Number(String(text).trim());
    if (Number.isFinite(value) && value >= 0 && String(text).trim() !== '') out[unit as PricingUnit] = value;
  }
  return Object.freeze(out);
}

/** Whether any unit carries a price > 0. */
export function hasPrices(pricing: Pricing): boolean {
  return Object.values(pricing).some((v) => (v ?? 0) > 0);
}

/** The priciest rate an output token can be billed at (reasoning may cost more than completion). */
export function outputTokenPrice(pricing: Pricing): number {
  return Math.max(pricing.completion ?? 0, pricing.internal_reasoning ?? 0);
}

/** Sum of quantity x price over every priced unit, in USD. */
export function priceUnits(units: Units, pricing: Pricing): number {
  let usd = 0;
  for (const unit of PRICING_UNITS) {
    const q = units[unit];
    const p = pricing[unit];
    if (q && p) usd += q * p;
  }
  return usd;
}
