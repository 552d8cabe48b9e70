import type { SseFrame } from '../codecs/codec.js';
import { withData } from '../sse-frame.js';
import { hasAt } from './frame-scan.js';

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
 * id, object and created before it) are checked at that offset first; a search happens only
 * when that check fails.
 */
export class ModelRenamer {
  /** The canonical field text, `"model":"<canonical id>"`. */
  readonly canonical: string;
  /** The upstream's field text, once a frame named it. */
  private field: string | undefined;
  /** Where the field was in the data of the last frame that had it. */
  private offset = -1;

  constructor(canonicalModel: string) {
    this.canonical = `"model":${JSON.stringify(canonicalModel)}`;
  }

  /** Length of the upstream's field text (valid after `locate` found it). */
  get fieldLength(): number {
    return this.field?.length ?? 0;
  }

  /**
   * Where the model field to rename starts in the frame data `text[start, end)`, or -1 when
   * the data names no model or already names the canonical one. `text` may hold many frames
   * (a passthrough's batch text): nothing outside the range is searched.
   */
  locate(text: string, start: number, end: number): number {
    let field = this.field;
    if (field !== undefined && this.offset >= 0) {
      const at = start + this.offset;
      if (at + field.length <= end && hasAt(text, field, at)) return field === this.canonical ? -1 : at;
    }
    const data = start === 0 && end === text.length ? text : text.slice(start, end);
    let at = field !== undefined ? data.indexOf(field) : -1;
    if (at < 0) {
      const found = MODEL_FIELD.exec(data);
      if (!found) return -1;
      field = this.field = found[0];
      at = found.index;
    }
    this.offset = at;
    return field === this.canonical ? -1 : start + at;
  }

  /** The frame with its model renamed (data and wire text), or the frame itself when there is nothing to rename. */
  rename(frame: SseFrame): SseFrame {
    const data = frame.data;
    const at = this.locate(data, 0, data.length);
    if (at < 0) return frame;
    const renamed = data.slice(0, at) + this.canonical + data.slice(at + this.fieldLength);
    const raw = frame.raw;
    // Wire text is kept only by the reader's fast path: the prefix (`event:` line, `data: `), the
    // data and the blank line. So the renamed wire text is that prefix, the renamed data and the
    // blank line: no second search and compare.
    if (raw === undefined || !raw.endsWith('\n\n')) return withData(frame, renamed);
    const prefix = raw.length - data.length - 2;
    if (prefix < 6 || raw.charCodeAt(prefix - 1) !== 32 /* the space of `data: ` */) return withData(frame, renamed);
    const rawRenamed = (prefix === 6 ? 'data: ' : raw.slice(0, prefix)) + renamed + '\n\n';
    return frame.event !== undefined ? { event: frame.event, data: renamed, raw: rawRenamed } : { data: renamed, raw: rawRenamed };
  }
}
