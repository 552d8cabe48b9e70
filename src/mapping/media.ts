import { readFile } from 'node:fs/promises';
import { errors } from '../errors/gateway-error.js';
import type { OperationCall } from '../providers/types.js';
import { decodeBase64Strict } from '../codecs/shared/base64.js';
import { decodeDataUrl } from '../codecs/shared/data-url.js';
import { abortSignalOf } from '../upstream/request-abort.js';

/**
 * Bytes the gateway resolved on a client's behalf (a fetched URL, a data: URL, base64 text, an
 * upload). The multipart transport sends it as a file part; mappings read its fields
 * (`$item.base64`, `$item.content_type`, `$item.data_url`, `$item.filename`, `$item.size`).
 */
export class MediaValue {
  constructor(readonly bytes: Uint8Array, readonly contentType: string, readonly filename: string) {}

  /** A named field, for mapping paths; undefined for unknown names. */
  field(name: string): unknown {
    switch (name) {
      case 'base64': return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString('base64');
      case 'content_type':
      case 'mime_type': return this.contentType;
      case 'data_url': return `data:${this.contentType};base64,${this.field('base64') as string}`;
      case 'filename': return this.filename;
      case 'size': return this.bytes.byteLength;
      default: return undefined;
    }
  }

  /** JSON form (never the bytes as numbers): its data URL. */
  toJSON(): string {
    return this.field('data_url') as string;
  }
}

/**
 * A file part of a multipart request, still on disk: the body step wrote it to a per-request
 * temp folder and removes that folder when the request ends, so it is read (once, lazily) only
 * by what needs its bytes (a mapping's `load`, the sandbox, the cost estimate).
 */
export class UploadedMedia {
  #media?: Promise<MediaValue>;

  constructor(readonly path: string, readonly filename: string, readonly contentType: string, readonly size: number) {}

  /** The bytes as media, typed by their magic number where the declared type is generic. */
  read(): Promise<MediaValue> {
    return (this.#media ??= readFile(this.path).then((bytes) => toMedia(new Uint8Array(bytes), this.contentType, 'file', this.filename)));
  }

  /** JSON form (logs, echoes): the part's description, never its bytes. */
  toJSON(): Record<string, unknown> {
    return { filename: this.filename, content_type: this.contentType, size: this.size };
  }
}

// Magic numbers of the media the gateway passes on, so uploads get a truthful type and a file
// name extension upstreams accept (OpenAI picks the audio decoder from the extension).
const SIGNATURES: Array<{ type: string; ext: string; test: (b: Buffer) => boolean }> = [
  { type: 'image/png', ext: 'png', test: (b) => b.length > 8 && b.readUInt32BE(0) === 0x89504e47 },
  { type: 'image/jpeg', ext: 'jpg', test: (b) => b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff },
  { type: 'image/gif', ext: 'gif', test: (b) => b.toString('latin1', 0, 4) === 'GIF8' },
  { type: 'image/webp', ext: 'webp', test: (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP' },
  { type: 'audio/wav', ext: 'wav', test: (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WAVE' },
  { type: 'audio/mpeg', ext: 'mp3', test: (b) => b.toString('latin1', 0, 3) === 'ID3' || (b.length > 2 && b[0] === 0xff && (b[1]! & 0xe6) === 0xe2) },
  { type: 'audio/ogg', ext: 'ogg', test: (b) => b.toString('latin1', 0, 4) === 'OggS' },
  { type: 'audio/flac', ext: 'flac', test: (b) => b.toString('latin1', 0, 4) === 'fLaC' },
  { type: 'video/mp4', ext: 'mp4', test: (b) => b.toString('latin1', 4, 8) === 'ftyp' },
  { type: 'video/webm', ext: 'webm', test: (b) => b.length > 4 && b.readUInt32BE(0) === 0x1a45dfa3 },
];

const EXTENSIONS: Record<string, string> = Object.fromEntries(SIGNATURES.map((s) => [s.type, s.ext]));

/** The media type the bytes' magic number says, else undefined. */
export function sniffContentType(bytes: Uint8Array): string | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return SIGNATURES.find((s) => s.test(b))?.type;
}

/** The usual file extension of a media type (`bin` when unknown). */
export function extensionOf(contentType: string): string {
  const base = contentType.split(';')[0]!.trim().toLowerCase();
  return EXTENSIONS[base] ?? (base === 'audio/mp3' ? 'mp3' : base === 'audio/x-wav' || base === 'audio/wave' ? 'wav' : base.split('/')[1]?.replace(/[^a-z0-9]/g, '') || 'bin');
}

/** Wraps bytes as media, trusting a declared type only when the bytes don't say otherwise. */
export function toMedia(bytes: Uint8Array, declared: string | undefined, stem: string, filename?: string): MediaValue {
  const sniffed = sniffContentType(bytes);
  const useful = declared && !/^(application\/octet-stream|binary\/octet-stream|text\/plain)/i.test(declared) ? declared.split(';')[0]!.trim() : undefined;
  const contentType = sniffed ?? useful ?? 'application/octet-stream';
  const ext = extensionOf(contentType);
  // A name without a telling extension (`upload.bin`) gets the one its bytes call for.
  const named = filename && !/\.bin$/i.test(filename) && /\.[A-Za-z0-9]{1,5}$/.test(filename) ? filename : undefined;
  return new MediaValue(bytes, contentType, named ?? `${filename ? filename.replace(/\.bin$/i, '') : stem}.${ext}`);
}


/** How a client value names its media. */
export type MediaSource = 'url' | 'base64' | 'file';

/**
 * Resolves one client value to bytes. `url`: an http(s) URL (fetched with the SSRF-safe
 * fetcher), a data: URL, `{url}`, `{type: 'image_url', url}`, `{image_url: {url}}` or
 * `{file_id}`; `base64`: base64 text or a data: URL; `file`: a gateway file id the caller
 * uploaded. A multipart file part (UploadedMedia) is accepted by every source. Bad input -> 400 naming the field.
 */
export async function loadMedia(value: unknown, source: MediaSource, field: string, call: OperationCall): Promise<MediaValue> {
  if (value instanceof MediaValue) return value;
  if (value instanceof UploadedMedia) return value.read();
  const stem = field.replace(/[^A-Za-z0-9_-]+/g, '_') || 'file';
  if (source === 'file') return loadFile(value, field, stem, call);
  if (typeof value !== 'string') {
    if (source === 'url' && value !== null && typeof value === 'object') {
      const record = value as Record<string, unknown>;
      const nested = record.image_url as Record<string, unknown> | undefined;
      if (typeof record.url === 'string') return loadMedia(record.url, 'url', field, call);
      if (nested && typeof nested === 'object' && typeof nested.url === 'string') return loadMedia(nested.url, 'url', field, call);
      if (typeof record.file_id === 'string') return loadFile(record.file_id, field, stem, call);
    }
    throw errors.invalidRequest(`'${field}' must be ${source === 'url' ? 'a URL (http(s) or data:), {url} or {file_id}' : 'base64 text'}.`, 'invalid_media', { field });
  }
  const data = value.startsWith('data:') ? decodeDataUrl(value) : undefined;
  if (data) return toMedia(data.bytes, data.contentType, stem);
  if (source === 'url') {
    if (!/^https?:\/\//i.test(value)) throw errors.invalidRequest(`'${field}' must be an http(s) or data: URL.`, 'invalid_url', { field });
    const fetched = await call.services.fetchMedia(value, abortSignalOf(call.signal));
    const name = decodeURIComponent(new URL(value).pathname.split('/').pop() ?? '');
    return toMedia(fetched.bytes, fetched.contentType, stem, /\.[A-Za-z0-9]{2,5}$/.test(name) ? name : undefined);
  }
  const bytes = decodeBase64Strict(value);
  if (!bytes || bytes.length === 0) throw errors.invalidRequest(`'${field}' is not valid base64.`, 'invalid_base64', { field });
  return toMedia(bytes, undefined, stem);
}

async function loadFile(value: unknown, field: string, stem: string, call: OperationCall): Promise<MediaValue> {
  if (typeof value !== 'string' || value.length === 0) throw errors.invalidRequest(`'${field}' must be a file id.`, 'invalid_file_id', { field });
  const record = await call.services.files.get(value, call.owner);
  const bytes = record ? await call.services.files.read(value, call.owner) : undefined;
  if (!record || !bytes) throw errors.invalidRequest(`File '${value}' was not found.`, 'file_not_found', { file_id: value });
  return toMedia(bytes, record.mime_type, stem, record.filename);
}
