import type { ImagePart } from '../internal.js';

/**
 * Turns an image reference written as a URL (`https://...` or `data:<mime>;base64,<b64>`) into an
 * internal ImagePart. Data URLs become base64 sources so every dialect can inline them.
 */
export function parseImageUrl(url: string, detail?: unknown): ImagePart {
  const part: ImagePart = { type: 'image', source: parseImageSource(url) };
  if (detail === 'auto' || detail === 'low' || detail === 'high') part.detail = detail;
  return part;
}

function parseImageSource(url: string): ImagePart['source'] {
  const match = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s.exec(url);
  if (match !== null) return { kind: 'base64', mediaType: match[1] as string, data: match[2] as string };
  return { kind: 'url', url };
}

/** Writes an internal image source back as a URL (data URL for base64). Undefined for file ids. */
export function formatImageUrl(source: ImagePart['source']): string | undefined {
  if (source.kind === 'url') return source.url;
  if (source.kind === 'base64') return `data:${source.mediaType};base64,${source.data}`;
  return undefined;
}
