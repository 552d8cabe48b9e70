import type { ImagePart } from '../internal.js';
import { formatDataUrl, parseDataUrl } from '../shared/data-url.js';

/**
 * Turns an image reference written as a URL (`https://...` or `data:<mime>;base64,<b64>`) into an
 * internal ImagePart. Data URLs become base64 sources so every dialect can inline them.
 */
export function parseImageUrl(url: string, detail?: unknown): ImagePart {
  const inline = parseDataUrl(url);
  const part: ImagePart = { type: 'image', source: inline ? { kind: 'base64', mediaType: inline.mediaType, data: inline.data } : { kind: 'url', url } };
  if (detail === 'auto' || detail === 'low' || detail === 'high') part.detail = detail;
  return part;
}

/** Writes an internal image source back as a URL (data URL for base64). Undefined for file ids. */
export function formatImageUrl(source: ImagePart['source']): string | undefined {
  if (source.kind === 'url') return source.url;
  if (source.kind === 'base64') return formatDataUrl(source.mediaType, source.data);
  return undefined;
}
