import type { Conversation } from '../../codecs/internal.js';
import type { CacheScope } from '../../config/types.js';
import { cacheKey, type CacheIdentity } from './cache-key.js';

/** What the semantic cache compares a request by. */
export interface SemanticAsk {
  /** The text of the last user turn: what is embedded. */
  readonly text: string;
  /**
   * The hash of everything else the exact key holds (model, scope, system, earlier turns,
   * tools, sampling parameters, other body fields, the embedding model): two prompts are
   * compared only within one partition.
   */
  readonly partition: string;
}

/**
 * The semantic side of a text request, or undefined when it has none: the conversation must
 * end with a user turn that holds text (a tool loop's next step, or an image alone, is asked
 * exactly or not at all). The partition is the exact cache key of the request with the text of
 * that last turn left out, so only the wording of the last question may differ between a
 * request and the stored prompt it matches.
 */
export function semanticAsk(operation: string, scope: CacheScope, who: CacheIdentity, body: Record<string, unknown>, conversation: Conversation, embeddingModel: string): SemanticAsk | undefined {
  const last = conversation.messages.at(-1);
  if (last?.role !== 'user') return undefined;
  const text = last.parts.map((p) => (p.type === 'text' ? p.text : '')).filter((t) => t.trim() !== '').join('\n');
  if (text === '') return undefined;
  const blanked: Conversation = {
    ...conversation,
    messages: [...conversation.messages.slice(0, -1), { role: 'user', parts: last.parts.map((p) => (p.type === 'text' ? { ...p, text: '' } : p)) }],
  };
  return { text, partition: cacheKey(`semantic\n${embeddingModel}\n${operation}`, scope, who, body, blanked) };
}
