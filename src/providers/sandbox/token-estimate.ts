/**
 * The sandbox's deterministic token counter. Not a real BPE tokenizer: it splits text into words
 * (letters, digits and `_`, long words in chunks of 8 characters) and single punctuation marks,
 * each piece carrying the whitespace before it. Stable across machines, roughly proportional to
 * what real tokenizers count, and the pieces concatenate back to the text (so truncating to N
 * tokens keeps the original spacing).
 */
const PIECE = /\s*(?:[\p{L}\p{N}_]{1,8}|[^\s\p{L}\p{N}_])/gu;

/** The token pieces of a text; joined they give the text back (leading/trailing spaces kept). */
export function splitTokens(text: string): string[] {
  const pieces = text.match(PIECE) ?? [];
  if (pieces.length === 0) return [];
  const consumed = pieces.reduce((n, p) => n + p.length, 0);
  if (consumed < text.length) pieces[pieces.length - 1] += text.slice(consumed);
  return pieces;
}

/** How many tokens the sandbox counts in a text. */
export function countTokens(text: string): number {
  return text.match(PIECE)?.length ?? 0;
}

/** The first `max` tokens of a text, and whether anything was cut. */
export function truncateToTokens(text: string, max: number): { text: string; truncated: boolean } {
  const pieces = splitTokens(text);
  if (pieces.length <= max) return { text, truncated: false };
  return { text: pieces.slice(0, Math.max(0, max)).join(''), truncated: true };
}
