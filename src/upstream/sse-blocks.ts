import { StringDecoder } from 'node:string_decoder';
import type { SseFrame } from '../codecs/codec.js';

/**
 * The gateway's one reader of upstream server-sent events (translated and same-format streams):
 * whole SSE events that keep their wire text. A passthrough forwards most events untouched, so
 * each frame carries `raw` (its exact bytes as text, blank line included) and is written back as
 * it came, never re-serialized; a decoder reads only `event` and `data`. Events are
 * found by a search for the blank line, not by a character-by-character parse: the common
 * event (`data: <one line>` with an optional `event:` line) is read by slicing; anything else
 * (comments, `id:`/`retry:` fields, data over several lines) goes through the full field
 * rules of the SSE spec (https://html.spec.whatwg.org/multipage/server-sent-events.html). Any
 * line ending is accepted: a stream with CR is normalized to LF first. One batch per network
 * read, so a proxy writes what one read brought in one write.
 */
export async function* readSseBlocks(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseFrame[]> {
  const decoder = new StringDecoder('utf8');
  let buffered = '';
  let started = false;
  for await (const chunk of body) {
    buffered += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    if (!started && buffered !== '') {
      // The spec drops one byte order mark at the start of the stream.
      started = true;
      if (buffered.charCodeAt(0) === 0xfeff) buffered = buffered.slice(1);
    }
    // A CR that ends the read may be the first half of a CRLF: it waits for the next read, or
    // normalized alone it would end its line twice (a blank line: an event split in two).
    const heldCr = buffered.charCodeAt(buffered.length - 1) === 13;
    const { frames, rest } = splitSseBlocks(heldCr ? buffered.slice(0, -1) : buffered);
    buffered = heldCr ? `${rest}\r` : rest;
    if (frames.length > 0) yield frames;
  }
  buffered += decoder.end();
  if (buffered.trim() !== '') {
    // The stream ended inside an event: the spec dispatches nothing for it, but a decoder must
    // see it to tell a cut stream from a finished one (its data is what arrived).
    const { frames } = splitSseBlocks(`${buffered}\n\n`);
    if (frames.length > 0) yield frames;
  }
}

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
      const frame = readBlock(text.slice(start, end + 2));
      if (frame) frames.push(frame);
    }
    start = end + 2;
    while (text.charCodeAt(start) === 10) start++;
  }
  return { frames, rest: start === 0 ? text : text.slice(start) };
}

/** One event block (ending with its blank line) as a frame, or undefined when it carries no data. */
function readBlock(raw: string): SseFrame | undefined {
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
