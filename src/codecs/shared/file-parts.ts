import { errors } from '../../errors/gateway-error.js';
import type { FilePart } from '../internal.js';
import { parseDataUrl } from './data-url.js';
import { readString, type JsonObject } from './json.js';

/** Media types by file name extension, for inline file data sent without a data URL. */
const BY_EXTENSION: Record<string, string> = { pdf: 'application/pdf', txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', html: 'text/html', json: 'application/json' };

/** The media type a file name suggests (PDF when it says nothing: the common case of file inputs). */
export function mediaTypeOfName(filename: string | undefined): string {
  const extension = filename?.split('.').pop()?.toLowerCase();
  return (extension !== undefined && BY_EXTENSION[extension]) || 'application/pdf';
}

/**
 * An OpenAI file content part (`input_file` of the Responses API, the `file` object of a chat
 * `file` part) -> internal file part: `file_data` (a base64 data URL, or bare base64 typed by
 * the file name), `file_url` or `file_id`; `filename` kept. 400 when it names no file.
 */
export function decodeOpenAiFile(part: JsonObject, where: string): FilePart {
  const filename = readString(part.filename);
  const data = readString(part.file_data);
  const url = readString(part.file_url);
  const id = readString(part.file_id);
  let source: FilePart['source'];
  if (data !== undefined) source = data.startsWith('data:') ? toBase64(parseDataUrl(data), where) : { kind: 'base64', mediaType: mediaTypeOfName(filename), data };
  else if (url !== undefined) source = { kind: 'url', url };
  else if (id !== undefined) source = { kind: 'file', fileId: id };
  else throw errors.invalidRequest(`${where}: a file part needs file_data, file_url or file_id.`, 'invalid_content');
  return { type: 'file', source, ...(filename !== undefined ? { filename } : {}) };
}

function toBase64(parsed: ReturnType<typeof parseDataUrl>, where: string): FilePart['source'] {
  if (!parsed) throw errors.invalidRequest(`${where}.file_data must be base64 data (a data:<type>;base64, URL or bare base64).`, 'invalid_content');
  return { kind: 'base64', mediaType: parsed.mediaType, data: parsed.data };
}
