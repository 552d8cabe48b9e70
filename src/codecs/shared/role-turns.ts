import type { Message, Part } from '../internal.js';

/** One turn of a dialect that knows only user and assistant turns (Anthropic Messages, Bedrock Converse). */
export interface RoleTurn<B> { role: 'user' | 'assistant'; content: B[] }

/**
 * Internal turns -> alternating user and assistant turns, as Anthropic and Converse want them:
 * tool turns become user turns, consecutive turns of one role merge (so tool results and the
 * user message after them form one user turn), and in each user turn the tool results come
 * first (a stable partition: they must open the turn that follows the tool calls). `encode`
 * gives a part's blocks; they stay together (a block and the cache point after it move as one).
 * A part with no blocks is left out, and so is a turn with none.
 */
export function roleTurns<B>(messages: readonly Message[], encode: (part: Part, role: 'user' | 'assistant') => B[], isToolResult: (block: B) => boolean): RoleTurn<B>[] {
  const grouped: Array<{ role: 'user' | 'assistant'; parts: B[][] }> = [];
  for (const message of messages) {
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const parts: B[][] = [];
    for (const part of message.parts) {
      const blocks = encode(part, role);
      if (blocks.length > 0) parts.push(blocks);
    }
    if (parts.length === 0) continue;
    const last = grouped.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else grouped.push({ role, parts });
  }
  return grouped.map(({ role, parts }) => {
    const ordered = role === 'user' ? [...parts.filter((p) => isToolResult(p[0]!)), ...parts.filter((p) => !isToolResult(p[0]!))] : parts;
    return { role, content: ordered.flat() };
  });
}
