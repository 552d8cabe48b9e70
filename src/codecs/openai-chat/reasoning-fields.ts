/**
 * Thinking on the chat wire. Chat Completions has no standard field for reasoning text, so the
 * gateway uses the de-facto extensions (DeepSeek, vLLM, LiteLLM):
 * - responses carry `message.reasoning_content` (all thinking text) and `message.thinking_blocks`
 *   (`[{type:'thinking', thinking, signature} | {type:'redacted_thinking', data}]`, exact blocks);
 * - stream deltas carry `delta.reasoning_content` fragments as they arrive and, when a thinking
 *   block ends, `delta.thinking_blocks` with that one complete block (text + signature), and a
 *   redacted block as soon as it starts;
 * - on assistant messages sent back, `thinking_blocks` wins; otherwise `reasoning_content` plus an
 *   optional `reasoning_signature` becomes one thinking block.
 * This lets multi-turn tool use with Anthropic extended thinking round-trip through chat
 * clients: Anthropic requires the signed thinking blocks of the last assistant turn back
 * unmodified (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking).
 * Upstream responses are also read from `reasoning` (OpenRouter's name for the same text), and
 * OpenRouter's `reasoning_details` (`reasoning.text` {text, signature}, `reasoning.encrypted`
 * {data}, `reasoning.summary` {summary}) is read wherever `thinking_blocks` is: clients built for
 * OpenRouter send their signed reasoning back in that spelling.
 */
import type { Part, RedactedThinkingPart, ThinkingPart } from '../internal.js';
import { isRecord, readString } from '../shared/json.js';
import type { ChatThinkingBlock } from './wire-types.js';

/** Thinking parts of an assistant message (request or upstream response), in order. */
export function readThinkingFields(message: Record<string, unknown>): Array<ThinkingPart | RedactedThinkingPart> {
  if (Array.isArray(message.thinking_blocks)) {
    const parts: Array<ThinkingPart | RedactedThinkingPart> = [];
    for (const block of message.thinking_blocks) {
      if (!isRecord(block)) continue;
      if (block.type === 'redacted_thinking' && typeof block.data === 'string') {
        parts.push({ type: 'redacted_thinking', data: block.data });
      } else if (block.type === 'thinking' && typeof block.thinking === 'string') {
        const signature = readString(block.signature);
        parts.push({ type: 'thinking', text: block.thinking, ...(signature ? { signature } : {}) });
      }
    }
    if (parts.length > 0) return parts;
  }
  if (Array.isArray(message.reasoning_details)) {
    const parts = readReasoningDetails(message.reasoning_details);
    if (parts.length > 0) return parts;
  }
  const text = readString(message.reasoning_content) ?? readString(message.reasoning);
  if (!text) return [];
  const signature = readString(message.reasoning_signature);
  return [{ type: 'thinking', text, ...(signature ? { signature } : {}) }];
}

function readReasoningDetails(details: unknown[]): Array<ThinkingPart | RedactedThinkingPart> {
  return details.flatMap((detail): Array<ThinkingPart | RedactedThinkingPart> => {
    if (!isRecord(detail)) return [];
    if (detail.type === 'reasoning.encrypted' && typeof detail.data === 'string') return [{ type: 'redacted_thinking', data: detail.data }];
    const text = detail.type === 'reasoning.text' ? readString(detail.text) : detail.type === 'reasoning.summary' ? readString(detail.summary) : undefined;
    if (text === undefined) return [];
    const signature = readString(detail.signature);
    return [{ type: 'thinking', text, ...(signature ? { signature } : {}) }];
  });
}

/** The chat form of one thinking part. */
export function writeThinkingBlock(part: ThinkingPart | RedactedThinkingPart): ChatThinkingBlock {
  if (part.type === 'redacted_thinking') return { type: 'redacted_thinking', data: part.data };
  return { type: 'thinking', thinking: part.text, ...(part.signature ? { signature: part.signature } : {}) };
}

/** `reasoning_content` and `thinking_blocks` for a response message; empty when no thinking. */
export function writeThinkingFields(parts: Part[]): { reasoning_content?: string; thinking_blocks?: ChatThinkingBlock[] } {
  const thinking = parts.filter((p): p is ThinkingPart | RedactedThinkingPart => p.type === 'thinking' || p.type === 'redacted_thinking');
  if (thinking.length === 0) return {};
  const text = thinking.filter((p): p is ThinkingPart => p.type === 'thinking').map((p) => p.text).join('\n\n');
  return { ...(text ? { reasoning_content: text } : {}), thinking_blocks: thinking.map(writeThinkingBlock) };
}
