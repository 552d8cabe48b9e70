import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A random id such as `chatcmpl-3fKq...`, `call_...`, `msg_...`, `toolu_...`.
 * Characters are `[A-Za-z0-9]` only, so the id satisfies every provider's id pattern
 * (Anthropic: `^[a-zA-Z0-9_-]+$`) once the prefix does.
 */
export function generateId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

/** Current time in Unix seconds (the `created` field of chat completions). */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** `id` when it already starts with `prefix`, else `prefix + id`: keeps upstream ids traceable. */
export function withIdPrefix(prefix: string, id: string): string {
  return id.startsWith(prefix) ? id : `${prefix}${id}`;
}
