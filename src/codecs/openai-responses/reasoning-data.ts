import type { ThinkingPart } from '../internal.js';
import { makeSyntheticReasoningId } from './ids.js';

/**
 * OpenAI reasoning items carry an id next to their `encrypted_content`, and a stateless
 * (`store:false`) replay needs both (the id names the item, the content restores it). The internal
 * RedactedThinkingPart has only `data`, so the id travels inside it as `<id>:<encrypted_content>`.
 * Other codecs treat `data` as opaque and echo it unchanged, so the id survives any surface.
 * Encrypted content is base64 and ids are `[A-Za-z0-9_-]`, so the first `:` is unambiguous.
 */

const REASONING_ID = /^rs_[A-Za-z0-9_-]+$/;

/** Packs a reasoning item's id and encrypted content into RedactedThinkingPart.data. */
export function packReasoningData(id: string | undefined, encrypted: string): string {
  if (id === undefined || !REASONING_ID.test(id) || id === makeSyntheticReasoningId(encrypted)) return encrypted;
  return `${id}:${encrypted}`;
}

/** Splits RedactedThinkingPart.data back into an item id (when packed) and the encrypted content. */
export function unpackReasoningData(data: string): { id?: string; encrypted: string } {
  const match = /^(rs_[A-Za-z0-9_-]+):(.+)$/s.exec(data);
  if (match === null) return { encrypted: data };
  return { id: match[1], encrypted: match[2] as string };
}

/**
 * Signed thinking (Anthropic thinking blocks, Gemini thought signatures) has no Responses field of
 * its own, yet the provider needs it back verbatim on the next turn of a tool loop. It travels in
 * the reasoning item's `encrypted_content`, which clients already echo back unchanged: the exact
 * blocks as `gwthink1.<base64url JSON>`. Opaque to clients, like OpenAI's own encrypted content.
 */
const SEALED_PREFIX = 'gwthink1.';

/** Seals signed thinking parts into one `encrypted_content` value. */
export function sealThinking(parts: readonly ThinkingPart[]): string {
  const blocks = parts.map((p) => ({ t: p.text, ...(p.signature !== undefined ? { s: p.signature } : {}) }));
  return SEALED_PREFIX + Buffer.from(JSON.stringify(blocks)).toString('base64url');
}

/** The thinking parts sealed in `encrypted`, or undefined when it is not a gateway seal. */
export function openSealedThinking(encrypted: string): ThinkingPart[] | undefined {
  if (!encrypted.startsWith(SEALED_PREFIX)) return undefined;
  try {
    const blocks = JSON.parse(Buffer.from(encrypted.slice(SEALED_PREFIX.length), 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(blocks)) return undefined;
    return blocks.flatMap((b: { t?: unknown; s?: unknown }) => (typeof b?.t === 'string'
      ? [{ type: 'thinking' as const, text: b.t, ...(typeof b.s === 'string' ? { signature: b.s } : {}) }]
      : []));
  } catch {
    return undefined;
  }
}
