/** Image (and common media) types by file extension, for fileData parts that need a mimeType. */
const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  mp4: 'video/mp4',
};

/**
 * Guesses a MIME type from a URL's path extension (query and fragment ignored); `fallback` when
 * the extension says nothing.
 */
export function guessMimeType(url: string, fallback: string): string;
export function guessMimeType(url: string, fallback?: string): string | undefined;
export function guessMimeType(url: string, fallback?: string): string | undefined {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    path = url.split(/[?#]/)[0] ?? url;
  }
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return (extension !== undefined ? MIME_BY_EXTENSION[extension] : undefined) ?? fallback;
}
