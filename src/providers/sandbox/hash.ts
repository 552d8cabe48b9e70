import { createHash, createHmac } from 'node:crypto';

/** SHA-256 hex of the parts, each length-prefixed so ('ab','c') and ('a','bc') differ. */
export function hashParts(...parts: Array<string | Uint8Array>): string {
  const hash = createHash('sha256');
  for (const part of parts) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    hash.update(String(bytes.length)).update(':').update(bytes);
  }
  return hash.digest('hex');
}

/** A deterministic id such as `sbx-3f9a...` (24 hex characters) derived from the parts. */
export function deriveId(prefix: string, ...parts: Array<string | Uint8Array>): string {
  return `${prefix}${hashParts(...parts).slice(0, 24)}`;
}

/** 32-bit FNV-1a of a string: cheap, stable feature hashing for embeddings. */
export function hashString32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A deterministic signature of a text (HMAC-SHA256 with a fixed sandbox key), base64url. */
export function signText(text: string): string {
  return `sbxsig_${createHmac('sha256', 'model-gateway-sandbox-v1').update(text, 'utf8').digest('base64url')}`;
}

/**
 * A seeded pseudo-random generator (mulberry32) returning floats in [0, 1).
 * The seed is any string (hashed), so equal seeds give equal sequences on every machine.
 */
export function createRandom(seed: string): () => number {
  let state = parseInt(hashParts(seed).slice(0, 8), 16) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
