import type { Conversation, Message, Part } from '../codecs/internal.js';

/**
 * The conversation a fallback in another wire format can accept: provider-only state is
 * dropped, because only the provider that made it can verify it. Thinking blocks and encrypted
 * reasoning are removed (turning them into assistant text would put reasoning in the model's
 * mouth); tool calls keep their ids but lose provider signatures (Gemini thoughtSignature).
 * Returns the input unchanged when there is nothing to drop.
 */
export function portableConversation(request: Conversation): Conversation {
  if (!request.messages.some((m) => m.parts.some(isProviderState))) return request;
  const messages: Message[] = [];
  for (const m of request.messages) {
    const parts: Part[] = [];
    for (const p of m.parts) {
      if (p.type === 'thinking' || p.type === 'redacted_thinking') continue;
      parts.push(p.type === 'tool_call' && p.signature !== undefined ? { type: 'tool_call', id: p.id, name: p.name, arguments: p.arguments } : p);
    }
    if (parts.length > 0) messages.push({ ...m, parts });
  }
  return { ...request, messages };
}

function isProviderState(p: Part): boolean {
  return p.type === 'thinking' || p.type === 'redacted_thinking' || (p.type === 'tool_call' && p.signature !== undefined);
}
