import { decodeBase64Strict } from './base64.js';

/** A `data:<mime>;base64,<data>` URL split into its parts. */
export interface DataUrl { mediaType: string; data: string }

const DATA_URL = /^data:([^;,]+)((?:;[^;,]+)*);base64,(.*)$/s;

/**
 * Splits a base64 data URL (`data:image/png;base64,XXX`) as OpenAI image parts carry them.
 * Returns undefined for any other URL (http(s), non-base64 data URLs).
 */
export function parseDataUrl(url: string): DataUrl | undefined {
  const match = DATA_URL.exec(url);
  if (!match) return undefined;
  return { mediaType: match[1]!.toLowerCase(), data: match[3]! };
}

/** Builds the base64 data URL for inline bytes. */
export function formatDataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}

/**
 * Decodes any `data:` URL (base64 or percent-encoded) to bytes; undefined when the text is not
 * one, or when its base64 payload is not valid base64 (never silently truncated).
 */
export function decodeDataUrl(url: string): { contentType: string; bytes: Buffer } | undefined {
  const match = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(url);
  if (!match) return undefined;
  const base64 = match[2]!.split(';').includes('base64');
  const bytes = base64 ? decodeBase64Strict(match[3]!) : Buffer.from(decodeURIComponent(match[3]!), 'utf8');
  return bytes ? { contentType: match[1] || 'text/plain', bytes } : undefined;
}
