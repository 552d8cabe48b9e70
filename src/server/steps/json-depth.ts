/**
 * Nesting depth of a parsed JSON body, measured before anything else walks it: a body nested
 * thousands deep must be refused with a 400, never overflow the stack of a later recursive
 * walk (schema validation, codecs, token counting). This walk recurses too, but it stops one
 * level past the limit, so its own stack stays bounded by the limit.
 */

/** The deepest nesting the gateway reads; far beyond any real request (tool schemas included). */
export const MAX_JSON_DEPTH = 256;

/** True when `value` nests objects/arrays deeper than `limit` levels. */
export function exceedsJsonDepth(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  return value !== null && typeof value === 'object' && deeper(value, 1, limit);
}

// Runs on every body: it reads children in place (no Object.values array, no stack entries),
// so a typical request body is checked without allocating.
function deeper(node: object, depth: number, limit: number): boolean {
  if (depth > limit) return true;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (child !== null && typeof child === 'object' && deeper(child, depth + 1, limit)) return true;
    }
    return false;
  }
  for (const key in node) {
    const child = (node as Record<string, unknown>)[key];
    if (child !== null && typeof child === 'object' && deeper(child, depth + 1, limit)) return true;
  }
  return false;
}
