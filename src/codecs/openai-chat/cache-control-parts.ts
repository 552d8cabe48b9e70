/**
 * Prompt-cache breakpoints on chat messages (LiteLLM's convention for OpenAI-format clients):
 * read here, sent only to Anthropic-format upstreams (others drop them).
 */
import type { CacheControl, Part } from '../internal.js';
import { readCacheControl } from '../shared/cache-control.js';
import { isRecord } from '../shared/json.js';

/**
 * LiteLLM's convention for prompt caching through OpenAI-format clients: `cache_control` on a
 * content part, or on the message (then it marks the message's last part).
 */
export function markLast<T extends Part>(parts: T[], cacheControl: unknown): T[] {
  const control = readCacheControl(cacheControl);
  const last = parts.at(-1);
  if (control && last && (last.type === 'text' || last.type === 'image' || last.type === 'tool_call')) last.cacheControl = control;
  return parts;
}

/** The breakpoint on any part of a system message's content (its parts are joined into one entry). */
export function systemPartsControl(content: unknown): CacheControl | undefined {
  if (!Array.isArray(content)) return undefined;
  for (const part of content) {
    const control = isRecord(part) ? readCacheControl(part.cache_control) : undefined;
    if (control) return control;
  }
  return undefined;
}

/** The raw `cache_control` of a content array's last part (a tool message's breakpoint). */
export function lastPartControl(content: unknown): unknown {
  return Array.isArray(content) && isRecord(content.at(-1)) ? (content.at(-1) as Record<string, unknown>).cache_control : undefined;
}
