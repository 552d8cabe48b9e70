import type { JsonObject } from '../shared/json.js';

/**
 * Compaction items the gateway makes itself (the sandbox's `responses.compact`): the items a
 * compaction folds away, carried in the item's `encrypted_content` as `gwcmp1.` + base64url
 * JSON, and unfolded back into those items when the client sends the compaction item as input
 * (input-decode.ts). Opaque to clients, as OpenAI's own compaction items are; OpenAI's items
 * stay OpenAI's to read.
 */
const PREFIX = 'gwcmp1.';

/** The `encrypted_content` of a gateway compaction item holding `items`. */
export function sealCompaction(items: readonly JsonObject[]): string {
  return PREFIX + Buffer.from(JSON.stringify(items), 'utf8').toString('base64url');
}

/** The items a gateway compaction item holds; undefined for any other content (OpenAI's). */
export function openCompaction(encrypted: string): JsonObject[] | undefined {
  if (!encrypted.startsWith(PREFIX)) return undefined;
  try {
    const items = JSON.parse(Buffer.from(encrypted.slice(PREFIX.length), 'base64url').toString('utf8')) as unknown;
    return Array.isArray(items) ? (items as JsonObject[]) : undefined;
  } catch {
    return undefined;
  }
}
