import type { CacheControl } from '../internal.js';
import { isRecord } from './json.js';

/**
 * A client's `cache_control` (Anthropic's, also LiteLLM's convention on OpenAI-format content
 * parts) -> internal breakpoint; anything but `{type: 'ephemeral'[, ttl: '5m'|'1h']}` is
 * ignored rather than refused (a hint, never a reason to fail a call).
 */
export function readCacheControl(value: unknown): CacheControl | undefined {
  if (!isRecord(value) || value.type !== 'ephemeral') return undefined;
  return value.ttl === '5m' || value.ttl === '1h' ? { type: 'ephemeral', ttl: value.ttl } : { type: 'ephemeral' };
}

/** `{cacheControl}` when the value is a breakpoint, else `{}` (spread into a part). */
export function cacheControlOf(value: unknown): { cacheControl?: CacheControl } {
  const control = readCacheControl(value);
  return control ? { cacheControl: control } : {};
}

/** Internal breakpoint -> the wire's `cache_control` object, spread into a block. */
export function writeCacheControl(control: CacheControl | undefined): { cache_control?: { type: 'ephemeral'; ttl?: '5m' | '1h' } } {
  if (!control) return {};
  return { cache_control: control.ttl ? { type: 'ephemeral', ttl: control.ttl } : { type: 'ephemeral' } };
}
