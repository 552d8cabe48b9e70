/**
 * Prompt-cache breakpoints on Converse: a `cachePoint` block after the prefix to cache
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_CachePointBlock.html),
 * `{type: 'default', ttl?: '5m' | '1h'}`. Bedrock caches for Anthropic Claude (system, messages
 * and tools) and Amazon Nova (system and messages, not tools)
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html); elsewhere a
 * breakpoint is dropped, as for any provider without explicit caching.
 */
import type { CacheControl } from '../internal.js';
import type { JsonObject } from '../shared/json.js';
import { modelFamily } from './reasoning-fields.js';

/** Where a model takes cache points. */
export interface CachePlacement { readonly system: boolean; readonly messages: boolean; readonly tools: boolean }

const NOWHERE: CachePlacement = { system: false, messages: false, tools: false };

/** The cache points a Bedrock model takes, by its family. */
export function cachePlacement(modelId: string): CachePlacement {
  switch (modelFamily(modelId)) {
    case 'anthropic': return { system: true, messages: true, tools: true };
    case 'nova': return { system: true, messages: true, tools: false };
    default: return NOWHERE;
  }
}

/** The cache point that follows a marked block (`[]` when unmarked or not taken there), spread after it. */
export function cachePointAfter(control: CacheControl | undefined, taken: boolean): JsonObject[] {
  if (!control || !taken) return [];
  return [{ cachePoint: control.ttl ? { type: 'default', ttl: control.ttl } : { type: 'default' } }];
}
