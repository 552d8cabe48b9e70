import type { SseFrame } from '../codecs/codec.js';
import { withData } from '../codecs/shared/sse-frame.js';

/** The first model field of a frame's JSON text. */
const MODEL_FIELD = /"model":"(?:[^"\\]|\\.)*"/;

/**
 * Renames the model in same-format stream frames: the upstream names its own model (often a
 * dated snapshot), the client is told the canonical id. The first `"model":"..."` of a frame
 * is the answer's own (it precedes any content), so a text edit does it without parsing the
 * frame, and the frame's wire text is edited the same way instead of being re-serialized.
 *
 * This runs on every frame, so it avoids searching: the upstream's field text and its offset
 * are learned from the first frame that names a model, and later frames (which repeat the same
 * id, object and created before it) are checked at that offset first; a search (no regex)
 * happens only when that check fails.
 */
export function createModelRenamer(canonicalModel: string): (frame: SseFrame) => SseFrame {
  const canonical = `"model":${JSON.stringify(canonicalModel)}`;
  let field: string | undefined;
  let offset = -1;
  return (frame) => {
    const data = frame.data;
    let at = field !== undefined && offset >= 0 && hasAt(data, field, offset) ? offset : -1;
    if (at < 0) {
      if (field !== undefined) at = data.indexOf(field);
      if (at < 0) {
        const found = MODEL_FIELD.exec(data);
        if (!found) return frame;
        field = found[0];
        at = found.index;
      }
      offset = at;
    }
    if (field === canonical) return frame;
    const end = at + field!.length;
    const renamed = data.slice(0, at) + canonical + data.slice(end);
    const raw = frame.raw;
    // Wire text is kept only by the reader's fast path: the prefix (`event:` line, `data: `), the
    // data and the blank line. So the renamed wire text is that prefix, the renamed data and the
    // blank line: no second search and compare (this runs on every frame).
    if (raw === undefined || !raw.endsWith('\n\n')) return withData(frame, renamed);
    const prefix = raw.length - data.length - 2;
    if (prefix < 6 || raw.charCodeAt(prefix - 1) !== 32 /* the space of `data: ` */) return withData(frame, renamed);
    const rawRenamed = (prefix === 6 ? 'data: ' : raw.slice(0, prefix)) + renamed + '\n\n';
    return frame.event !== undefined ? { event: frame.event, data: renamed, raw: rawRenamed } : { data: renamed, raw: rawRenamed };
  };
}

/**
 * Whether `text` holds `part` at `index`. A slice compared with `===` costs about a third of
 * `startsWith(part, index)`, which V8 runs on its slow path for the sliced strings frames are.
 */
function hasAt(text: string, part: string, index: number): boolean {
  return text.slice(index, index + part.length) === part;
}
