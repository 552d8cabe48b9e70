/**
 * Strict base64 decoding. Node's `Buffer.from(text, 'base64')` never fails: it skips characters
 * outside the alphabet and drops a dangling final character, so a corrupted or cut upload
 * would be stored silently short. Every client-supplied base64 goes through here instead.
 */

const STANDARD = /^[A-Za-z0-9+/]*={0,2}$/;
const URL_SAFE = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Decodes standard or URL-safe base64 (whitespace ignored, padding optional). Undefined when
 * the text is not base64: a character outside one alphabet, misplaced padding, a padded text
 * whose length is not a multiple of 4, or an unpadded one with a dangling sixth bit group
 * (length % 4 == 1), which cannot encode whole bytes.
 */
export function decodeBase64Strict(text: string): Buffer | undefined {
  const compact = /\s/.test(text) ? text.replace(/\s+/g, '') : text;
  const urlSafe = !STANDARD.test(compact);
  if (urlSafe && !URL_SAFE.test(compact)) return undefined;
  const padded = compact.endsWith('=');
  if (padded ? compact.length % 4 !== 0 : compact.length % 4 === 1) return undefined;
  return Buffer.from(compact, urlSafe ? 'base64url' : 'base64');
}
