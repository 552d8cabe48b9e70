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

/** Whether a same-format frame must go through the dialect's decoder. */
export function mustDecode(frame: SseFrame, first: boolean): boolean {
  if (first) return true;
  // A frame cut short or not JSON is decoded, so the decoder flags it and the client gets its
  // own error event instead of a frame its SDK cannot parse (one character checked, not parsed).
  if (!endsLikeJson(frame.data)) return true;
  const event = frame.event;
  if (event !== undefined) {
    if (CONTENT_EVENTS.has(event)) return false;
    if (event.startsWith('response.')) return RESPONSES_KEPT.has(event);
    return true;
  }
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
