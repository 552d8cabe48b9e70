/**
 * Counting with a loaded BPE encoding, shared by the in-process counter and its worker thread.
 * Long unbroken runs are cut into pieces (BPE merges a piece in quadratic time: an unbroken
 * 50 KB string would take seconds); cutting can only add tokens, so a count stays an upper
 * bound. Special-token text (`<|endoftext|>`) is counted as ordinary text, never refused.
 */

/** The part of a gpt-tokenizer encoding module the counters use. */
export interface BpeEncoding {
  countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number;
}

/** Module that provides the o200k_base encoding (OpenAI's current models). */
export const BPE_MODULE = 'gpt-tokenizer/encoding/o200k_base';

// Longest run of non-space characters handed to the BPE in one piece.
const MAX_RUN = 64;
// Text is encoded in segments of about this size, cut at whitespace.
const SEGMENT = 8192;
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
// Built once: matchAll works on a copy, so the shared global regex keeps no state between calls.
const LONG_RUN = new RegExp(`\\S{${MAX_RUN + 1},}`, 'g');

/** o200k_base token count of a text with `encoding`. */
export function countWith(encoding: BpeEncoding, text: string): number {
  if (text.length === 0) return 0;
  let total = 0;
  for (const segment of splitSegments(text)) total += encoding.countTokens(segment, NO_SPECIAL);
  return total;
}

/** Splits text into segments of about SEGMENT chars at whitespace, with long runs cut at MAX_RUN. */
function* splitSegments(text: string): Generator<string> {
  let last = 0;
  for (const m of text.matchAll(LONG_RUN)) {
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
