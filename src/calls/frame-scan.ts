import type { SseFrame } from '../codecs/codec.js';

/**
 * The cheap scan of same-format stream frames: a passthrough forwards every frame as it came,
 * so only frames that may carry the start, usage, a finish, an error or the stream's end are
 * decoded (JSON-parsed); content deltas are not. Their delivered text is measured by a text
 * scan instead, for the bill of a stream that ends without usage.
 */

// Anthropic content block events and OpenAI Responses item/part/delta events carry content only.
const CONTENT_EVENTS = new Set(['content_block_start', 'content_block_delta', 'content_block_stop', 'ping']);
const RESPONSES_KEPT = new Set(['response.created', 'response.in_progress', 'response.queued', 'response.completed', 'response.incomplete', 'response.failed']);

// A chat chunk that carries a finish, usage or an error. One pass of one regex: three `includes`
// of quote-led needles cost about five times as much on a content chunk (every `"` is a
// partial match), and this test runs on every chunk. The needles start after their opening
// quote for the same reason (half the cost of `"finish_reason"...` on a 200-byte chunk): the
// test is looser (`"native_finish_reason":"`, a text ending in `error` also match), which only
// means such a frame is decoded too.
// Whitespace after the colon is allowed: upstreams that serialize with Python's default
// separators write `"usage": {`, and their finish and usage chunks must still be decoded.
const CHAT_KEPT = /_reason"\s*:\s*"|usage"\s*:\s*\{|error"/;

// The same test as a search over a batch's whole text from an offset (identity-stage.ts).
const CHAT_KEPT_IN_TEXT = new RegExp(CHAT_KEPT.source, 'g');

/**
 * Where the next chat chunk text that must be decoded (CHAT_KEPT) starts in `text` at or after
 * `from`, or `text.length`. One search covers the run of content chunks before that point, so
 * a batch of chunks costs one or two searches instead of one test per chunk. A match inside a
 * chunk's data never reaches past it: the data ends with `}`, which no needle contains.
 */
export function nextKeptAt(text: string, from: number): number {
  CHAT_KEPT_IN_TEXT.lastIndex = from;
  const found = CHAT_KEPT_IN_TEXT.exec(text);
  return found ? found.index : text.length;
}

/**
 * Whether `text` holds `part` at `index`. A slice compared with `===` costs about half of
 * `startsWith(part, index)`, which V8 runs on its slow path for the sliced strings network
 * reads and frames are (Node 20: 29 vs 42 ns for a model field, 9 vs 16 ns for `data: `).
 */
export function hasAt(text: string, part: string, index: number): boolean {
  return text.slice(index, index + part.length) === part;
}

/** Whether a named event that ends like JSON needs no decoding (content events only). */
export function skipsNamedEvent(event: string): boolean {
  if (CONTENT_EVENTS.has(event)) return true;
  return event.startsWith('response.') && !RESPONSES_KEPT.has(event);
}

/** Whether a same-format frame must go through the dialect's decoder. */
export function mustDecode(frame: SseFrame, first: boolean): boolean {
  if (first) return true;
  // A frame cut short or not JSON is decoded, so the decoder flags it and the client gets its
  // own error event instead of a frame its SDK cannot parse (one character checked, not parsed).
  if (!endsLikeJson(frame.data)) return true;
  const event = frame.event;
  if (event !== undefined) return !skipsNamedEvent(event);
  // Chat completions chunks have no event name: decode the finish, usage, error and [DONE].
  const data = frame.data;
  return CHAT_KEPT.test(data) || data.startsWith('[DONE]');
}

/** Whether a frame's data ends as a JSON object does (or is the chat `[DONE]` marker). */
function endsLikeJson(data: string): boolean {
  let i = data.length - 1;
  while (i >= 0 && data.charCodeAt(i) <= 32) i--;
  return i >= 0 && (data.charCodeAt(i) === 125 /* } */ || data.endsWith('[DONE]'));
}

// String fields that hold generated output in the three same-format dialects.
const OUTPUT_KEYS = ['"text":"', '"content":"', '"delta":"', '"partial_json":"', '"arguments":"', '"thinking":"', '"reasoning_content":"', '"reasoning":"'];

/** Characters of generated output in a frame's JSON text (escapes counted as written). */
export function outputCharsOf(data: string): number {
  let n = 0;
  for (const key of OUTPUT_KEYS) {
    let i = data.indexOf(key);
    while (i >= 0) {
      const start = i + key.length;
      let end = start;
      while (end < data.length && data.charCodeAt(end) !== 34 /* " */) end += data.charCodeAt(end) === 92 /* \ */ ? 2 : 1;
      n += end - start;
      i = data.indexOf(key, end);
    }
  }
  return n;
}
