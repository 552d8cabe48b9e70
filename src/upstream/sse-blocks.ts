import type { SseFrame } from '../sse-frame.js';

/*
 * Server-sent events as text: whole events found in a text and read into frames that keep
 * their wire text (`raw`). The readers of upstream bodies (sse-readers.ts) cut the text at
 * whole events and hand it here.
 */

/** The complete events at the start of `text` and what follows the last of them. */
export function splitSseBlocks(text: string): { frames: SseFrame[]; rest: string } {
  if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
  const frames: SseFrame[] = [];
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n\n', start);
    if (end < 0) break;
    // Blank lines in a row are one separator.
    if (end > start) {
      const frame = readSseBlock(text.slice(start, end + 2));
      if (frame) frames.push(frame);
    }
    start = end + 2;
    while (text.charCodeAt(start) === 10) start++;
  }
  return { frames, rest: start === 0 ? text : text.slice(start) };
}

/** The first event with data in a text of whole events (readSseText's batch), if any; the rest is not read. */
export function firstSseFrame(text: string): SseFrame | undefined {
  for (let start = 0; start < text.length;) {
    const end = text.indexOf('\n\n', start);
    const next = end < 0 ? text.length : end + 2;
    const frame = readSseBlock(text.slice(start, next));
    if (frame) return frame;
    start = next;
  }
  return undefined;
}

/** One event block (ending with its blank line) as a frame, or undefined when it carries no data. */
export function readSseBlock(raw: string): SseFrame | undefined {
  // `data: <json>\n\n`: one data line, nothing else.
  if (raw.startsWith('data: ')) {
    const nl = raw.indexOf('\n', 6);
    if (nl === raw.length - 2) return { data: raw.slice(6, nl), raw };
  } else if (raw.startsWith('event: ')) {
    // `event: <name>\ndata: <json>\n\n` (an empty name is no name: the field rules below)
    const nl = raw.indexOf('\n', 7);
    if (nl > 7 && raw.startsWith('data: ', nl + 1)) {
      const nl2 = raw.indexOf('\n', nl + 7);
      if (nl2 === raw.length - 2) return { event: raw.slice(7, nl), data: raw.slice(nl + 7, nl2), raw };
    }
  }
  return readBlockFields(raw);
}

/** The spec's field rules for an unusual block (comments, several data lines, no space after ':'). */
function readBlockFields(raw: string): SseFrame | undefined {
  let event: string | undefined;
  let data: string[] | undefined;
  for (const line of raw.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') (data ??= []).push(value);
    else if (field === 'event') event = value;
  }
  if (!data) return undefined;
  // Not forwarded as it came: the comments and fields the gateway does not keep are dropped,
  // as the parser of a translated stream drops them.
  return event ? { event, data: data.join('\n') } : { data: data.join('\n') };
}
