import type { Usage } from '../codecs/internal.js';
import { priceUnits, type Pricing, type Units } from './pricing.js';
import { roundUsd } from './usd.js';

/**
 * Billing units of a text call from the provider's usage. `inputTokens` counts ALL prompt
 * tokens (cached reads and cache writes included), so each token is billed exactly once:
 *   prompt             = input - cache_read - cache_write
 *   input_cache_read   = cache_read          (at `prompt` when no cache-read price is listed)
 *   input_cache_write  = cache_write         (at `prompt` when no cache-write price is listed)
 *   internal_reasoning = reasoning           (when priced; else billed as completion)
 *   completion         = output - reasoning  (output includes reasoning tokens)
 *   request            = 1
 */
export function unitsOfTextUsage(usage: Usage, pricing: Pricing): Units {
  const input = Math.max(0, usage.inputTokens);
  const cacheRead = clamp(usage.cachedInputTokens ?? 0, input);
  const cacheWrite = clamp(usage.cacheWriteInputTokens ?? 0, input - cacheRead);
  const output = Math.max(0, usage.outputTokens);
  const reasoning = clamp(usage.reasoningTokens ?? 0, output);
  const units: Units = { prompt: input - cacheRead - cacheWrite, request: 1 };
  if (pricing.input_cache_read !== undefined) units.input_cache_read = cacheRead;
  else units.prompt! += cacheRead;
  if (pricing.input_cache_write !== undefined) units.input_cache_write = cacheWrite;
  else units.prompt! += cacheWrite;
  if (pricing.internal_reasoning !== undefined) {
    units.internal_reasoning = reasoning;
    units.completion = output - reasoning;
  } else {
    units.completion = output;
  }
  return units;
}

/** USD cost of a text call's usage (see unitsOfTextUsage for the formula). */
export function computeTextCost(usage: Usage, pricing: Pricing): number {
  return roundUsd(priceUnits(unitsOfTextUsage(usage, pricing), pricing));
}

/**
 * What provider prompt caching saved on a text call against the same tokens at the full input
 * price: cache reads at (`prompt` - `input_cache_read`), less the premium of cache writes
 * (`input_cache_write` - `prompt`). Negative on a call that only wrote the cache (it pays that
 * premium once, to read cheaply later); 0 without cache prices or cache tokens.
 */
export function promptCacheSavingUsd(usage: Usage, pricing: Pricing): number {
  const full = pricing.prompt ?? 0;
  const input = Math.max(0, usage.inputTokens);
  const cacheRead = clamp(usage.cachedInputTokens ?? 0, input);
  const cacheWrite = clamp(usage.cacheWriteInputTokens ?? 0, input - cacheRead);
  const read = pricing.input_cache_read ?? full;
  const write = pricing.input_cache_write ?? full;
  return roundUsd(cacheRead * (full - read) - cacheWrite * (write - full));
}

function clamp(value: number, max: number): number {
  return Math.min(Math.max(0, value), Math.max(0, max));
}
