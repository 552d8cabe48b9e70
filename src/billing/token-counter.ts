import { createRequire } from 'node:module';
import { Tiktoken } from 'js-tiktoken/lite';
import type { Conversation, Part } from '../codecs/internal.js';

/**
 * Token counts for worst-case estimates, with a real BPE tokenizer (o200k_base, the encoding of
 * OpenAI's current models). Other providers tokenize differently, so estimates take the larger
 * of o200k_base (+10%) and a fine-grained word/symbol count (each symbol one token, words in
 * pieces of at most 8 characters), which covers tokenizers that split punctuation and symbols
 * more finely than o200k_base does. Counting is only done when a budget or a token limit needs
 * it; costs after a call always come from the provider's reported usage.
 */

/** Safety factor over the o200k_base count. */
export const TOKENIZER_MARGIN = 1.1;
/** Tokens counted per message for role and framing (OpenAI counts 3-4; Anthropic similar). */
export const TOKENS_PER_MESSAGE = 4;
/** Tokens counted per input image: the largest any current provider bills for one image. */
export const TOKENS_PER_IMAGE = 2500;

// Longest run of non-space characters handed to the BPE in one piece: js-tiktoken merges a
// piece in quadratic time, so an unbroken 20 KB string would take seconds. Splitting can only
// add tokens (merges across a cut are lost), so the count stays an upper bound.
const MAX_RUN = 64;
// Text is encoded in segments of about this size, cut at whitespace.
const SEGMENT = 8192;

let encoder: Tiktoken | undefined;

/** The o200k_base encoder, loaded once on first use (the ranks are a 2 MB module). */
function loadEncoder(): Tiktoken {
  if (!encoder) {
    const require = createRequire(import.meta.url);
    const ranks = require('js-tiktoken/ranks/o200k_base') as ConstructorParameters<typeof Tiktoken>[0];
    encoder = new Tiktoken(ranks);
  }
  return encoder;
}

/** o200k_base token count of a text (long unbroken runs counted in pieces, see MAX_RUN). */
export function countBpeTokens(text: string): number {
  if (text.length === 0) return 0;
  const enc = loadEncoder();
  let total = 0;
  for (const segment of splitSegments(text)) total += enc.encode(segment).length;
  return total;
}

const FINE_PIECE = /[\p{L}\p{N}_]{1,8}|[^\s\p{L}\p{N}_]/gu;

/** Fine-grained count: each symbol one token, words in pieces of at most 8 characters. */
export function countFineTokens(text: string): number {
  return text.match(FINE_PIECE)?.length ?? 0;
}

/** Worst-case tokens of a text: the larger of o200k_base + margin and the fine-grained count. */
export function countTokensWorstCase(text: string): number {
  if (text.length === 0) return 0;
  return Math.max(Math.ceil(countBpeTokens(text) * TOKENIZER_MARGIN), countFineTokens(text));
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
export function countConversationTokens(request: Conversation): PromptCount {
  const texts: string[] = [...request.system];
  let images = 0;
  let framing = 3 + TOKENS_PER_MESSAGE * (request.messages.length + request.system.length);
  const visit = (parts: readonly Part[]): void => {
    for (const part of parts) {
      switch (part.type) {
        case 'text': case 'thinking': texts.push(part.text); break;
        case 'image': images++; break;
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
  const textTokens = countTokensWorstCase(texts.join('\n')) + framing;
  return { textTokens, images, tokens: textTokens + images * TOKENS_PER_IMAGE };
}

// Built once: matchAll works on a copy, so the shared global regex keeps no state between calls.
const LONG_RUN = new RegExp(`\\S{${MAX_RUN + 1},}`, 'g');

/** Splits text into segments of about SEGMENT chars at whitespace, with long runs cut at MAX_RUN. */
function* splitSegments(text: string): Generator<string> {
  const longRun = LONG_RUN;
  let last = 0;
  for (const m of text.matchAll(longRun)) {
    yield* splitAtWhitespace(text.slice(last, m.index));
    const run = m[0];
    for (let i = 0; i < run.length; i += MAX_RUN) yield run.slice(i, i + MAX_RUN);
    last = m.index + run.length;
  }
  yield* splitAtWhitespace(text.slice(last));
}

function* splitAtWhitespace(text: string): Generator<string> {
  let start = 0;
  while (text.length - start > SEGMENT) {
    let cut = text.lastIndexOf(' ', start + SEGMENT);
    if (cut <= start) cut = start + SEGMENT;
    yield text.slice(start, cut);
    start = cut;
  }
  if (start < text.length) yield text.slice(start);
}
