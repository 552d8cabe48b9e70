import type { Conversation, Part } from '../codecs/internal.js';
import { countBpe, countBpeBatch } from './bpe.js';
import { CountCache } from './count-cache.js';

/**
 * Token counts for worst-case estimates, with a real BPE tokenizer (o200k_base, the encoding of
 * OpenAI's current models; see bpe.ts for how it is loaded without stalling the event loop).
 * Other providers tokenize differently, so estimates take the larger of o200k_base (+10%) and a
 * fine-grained word/symbol count (each symbol one token, words in pieces of at most 8
 * characters), which covers tokenizers that split punctuation and symbols more finely than
 * o200k_base does. Counting is only done when a budget or a token limit needs it; costs after
 * a call come from the provider's reported usage, or from `estimateConversationTokens` (cheap,
 * marked estimated) when it reports none.
 */

/** Safety factor over the o200k_base count. */
export const TOKENIZER_MARGIN = 1.1;
/** Tokens counted per message for role and framing (OpenAI counts 3-4; Anthropic similar). */
export const TOKENS_PER_MESSAGE = 4;
/** Tokens counted per input image: the largest any current provider bills for one image. */
export const TOKENS_PER_IMAGE = 2500;
/** Characters per token assumed by the cheap estimate (English averages about 4). */
export const ESTIMATE_CHARS_PER_TOKEN = 3;

/** o200k_base token count of a text (long unbroken runs counted in pieces). */
export function countBpeTokens(text: string): Promise<number> {
  return countBpe(text);
}

const FINE_PIECE = /[\p{L}\p{N}_]{1,8}|[^\s\p{L}\p{N}_]/gu;

/** Fine-grained count: each symbol one token, words in pieces of at most 8 characters. */
export function countFineTokens(text: string): number {
  return text.match(FINE_PIECE)?.length ?? 0;
}

/** Worst-case tokens of a text: the larger of o200k_base + margin and the fine-grained count. */
export async function countTokensWorstCase(text: string): Promise<number> {
  return (await countTextsWorstCase([text]))[0]!;
}

function worstCaseOf(text: string, bpe: number): number {
  return Math.max(Math.ceil(bpe * TOKENIZER_MARGIN), countFineTokens(text));
}

// Up to 4M characters of recent prompt texts (a few MB), texts under 16 characters not kept.
const recentCounts = new CountCache(4_000_000, 16);

/**
 * Worst-case tokens of each text, in order. Texts counted lately (a system prompt, a history
 * sent again with the next turn) are answered from a cache; the rest go to the BPE counter in
 * one batch.
 */
export async function countTextsWorstCase(texts: readonly string[]): Promise<number[]> {
  const counts = texts.map((t) => (t.length === 0 ? 0 : recentCounts.get(t)));
  const missing: string[] = [];
  for (let i = 0; i < texts.length; i++) if (counts[i] === undefined) missing.push(texts[i]!);
  if (missing.length > 0) {
    const bpe = await countBpeBatch(missing);
    for (let i = 0, m = 0; i < texts.length; i++) {
      if (counts[i] !== undefined) continue;
      const text = texts[i]!;
      const n = worstCaseOf(text, bpe[m++]!);
      recentCounts.set(text, n);
      counts[i] = n;
    }
  }
  return counts as number[];
}

/** What a prompt is made of, for estimates. */
export interface PromptCount {
  /** Worst-case tokens of the text, framing and tool definitions (images excluded). */
  textTokens: number;
  /** Number of input images. */
  images: number;
  /** textTokens + images x TOKENS_PER_IMAGE. */
  tokens: number;
}

/** Worst-case prompt tokens of a conversation: system, messages, tools and images. */
export async function countConversationTokens(request: Conversation): Promise<PromptCount> {
  const { texts, images, framing } = promptParts(request);
  // Each text counted on its own (so a text sent again is a cache hit): a count across a
  // boundary can only merge tokens, so the sum is not below the joined text's count; one more
  // token per separator stands for the newline the joined count had.
  let textTokens = framing + Math.max(0, texts.length - 1);
  for (const n of await countTextsWorstCase(texts)) textTokens += n;
  return { textTokens, images, tokens: textTokens + images * TOKENS_PER_IMAGE };
}

/**
 * A cheap estimate of a conversation's prompt tokens (no tokenizer: characters / 3, plus
 * framing and images), for billing a call whose provider reported no usage. Leans high for
 * ordinary text; callers mark what they bill from it as estimated.
 */
export function estimateConversationTokens(request: Conversation): number {
  const { texts, images, framing } = promptParts(request);
  let chars = 0;
  for (const t of texts) chars += t.length;
  return Math.ceil(chars / ESTIMATE_CHARS_PER_TOKEN) + framing + images * TOKENS_PER_IMAGE;
}

/** The texts, image count and framing tokens of a prompt. */
function promptParts(request: Conversation): { texts: string[]; images: number; framing: number } {
  const texts: string[] = [...request.system];
  let images = 0;
  let framing = 3 + TOKENS_PER_MESSAGE * (request.messages.length + request.system.length);
  const visit = (parts: readonly Part[]): void => {
    for (const part of parts) {
      switch (part.type) {
        case 'text': case 'thinking': texts.push(part.text); break;
        case 'image': images++; break;
        // A document's text is unknown until the provider reads it: its base64 size bounds it
        // (one token per 3 characters), a URL or file id counts as an image does.
        case 'file':
          if (part.source.kind === 'base64') framing += Math.ceil(part.source.data.length / 3);
          else images++;
          break;
        case 'tool_call': texts.push(part.name, part.arguments); framing += 4; break;
        case 'tool_result':
          if (typeof part.content === 'string') texts.push(part.content);
          else visit(part.content);
          framing += 4;
          break;
        case 'redacted_thinking': framing += Math.ceil(part.data.length / 3); break;
      }
    }
  };
  for (const message of request.messages) visit(message.parts);
  if (request.tools?.length) texts.push(JSON.stringify(request.tools));
  if (request.responseFormat?.type === 'json_schema') texts.push(JSON.stringify(request.responseFormat.schema));
  return { texts, images, framing };
}
