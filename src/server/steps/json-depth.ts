/**
 * Nesting depth of a parsed JSON body, measured without recursion (a body nested thousands
 * deep must be refused with a 400, never overflow the stack of a later recursive walk: schema
 * validation, codecs, token counting).
 */

/** The deepest nesting the gateway reads; far beyond any real request (tool schemas included). */
export const MAX_JSON_DEPTH = 256;

/** True when `value` nests objects/arrays deeper than `limit` levels. */
export function exceedsJsonDepth(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
