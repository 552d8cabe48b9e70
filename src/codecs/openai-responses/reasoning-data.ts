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
