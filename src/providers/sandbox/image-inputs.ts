import { errors } from '../../errors/gateway-error.js';
import type { OperationCall } from '../types.js';
import { probeImage, type ImageInfo } from './image-probe.js';
import { loadMedia } from '../../mapping/media.js';

/** A client's reference to an input image. */
export type ImageReference = { kind: 'url'; url: string } | { kind: 'file'; fileId: string };

/** A loaded input image. */
export interface LoadedImage { bytes: Uint8Array; info: ImageInfo }

/**
 * The image references of one body field, in the SPEC 4.6 forms: a URI string, `{url}`, or
 * `{type: 'image_url', url}`; also tolerated: `{image_url: {url}}` and `{file_id}`.
 */
export function readImageReferences(value: unknown, field: string): ImageReference[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  return items.map((item): ImageReference => {
    if (typeof item === 'string' && item.length > 0) return { kind: 'url', url: item };
    if (item !== null && typeof item === 'object') {
      const record = item as Record<string, unknown>;
      if (typeof record.url === 'string') return { kind: 'url', url: record.url };
      const nested = record.image_url as Record<string, unknown> | undefined;
      if (nested && typeof nested === 'object' && typeof nested.url === 'string') return { kind: 'url', url: nested.url };
      if (typeof record.file_id === 'string') return { kind: 'file', fileId: record.file_id };
    }
    throw errors.invalidRequest(`'${field}' must hold image URLs (a URI string, {url} or {type: 'image_url', url}).`, 'invalid_image', { field });
  });
}

/** File ids given as `file_id` / `file_ids` (image generation references). */
export function readFileReferences(body: Record<string, unknown>): ImageReference[] {
  const ids = [body.file_id, ...(Array.isArray(body.file_ids) ? body.file_ids : [])].filter((id) => id !== undefined && id !== null);
  return ids.map((id) => {
    if (typeof id !== 'string' || id.length === 0) throw errors.invalidRequest('file ids must be non-empty strings.', 'invalid_file_id');
    return { kind: 'file', fileId: id };
  });
}


/**
 * Loads an input image through the gateway's one media loader (mapping/media.ts): `data:` URLs
 * locally, http(s) through the safe fetcher, file ids from the caller's uploads (missing or
 * someone else's -> 400 `file_not_found`). Bytes that are not PNG, JPEG, GIF or WebP -> 400
 * `invalid_image`.
 */
export async function loadImage(reference: ImageReference, call: OperationCall): Promise<LoadedImage> {
  const media = reference.kind === 'file'
    ? await loadMedia(reference.fileId, 'file', 'file_id', call)
    : await loadMedia(reference.url, 'url', 'image', call);
  const info = probeImage(media.bytes);
  const where = reference.kind === 'file' ? `file '${reference.fileId}'` : reference.url.startsWith('data:') ? 'a data: URL' : reference.url;
  if (!info) throw errors.invalidRequest(`The image at ${where.slice(0, 200)} is not a PNG, JPEG, GIF or WebP image.`, 'invalid_image');
  return { bytes: media.bytes, info };
}
