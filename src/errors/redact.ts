/**
 * Redaction of credentials in text that reaches a client or a log line: provider error
 * messages (which sometimes quote the key they were sent: OpenAI "Incorrect API key provided:
 * sk-proj-****abcd", compatible servers echo it whole) and log fields.
 * Two rules: every configured provider key, by exact value (whatever it looks like), and
 * anything shaped like a well-known key or a bearer token.
 */

const CREDENTIAL = /\b(?:sk|pk|rk|ek|gsk|xai)[-_][-_A-Za-z0-9*]{4,}|\bAIza[-_A-Za-z0-9]{10,}|\bBearer\s+\S+/g;
const REDACTED = '[redacted]';
// Shorter values would redact ordinary words; no real provider key is this short.
const MIN_SECRET_LENGTH = 6;

/** Exact secret values known to the process, longest first (so a key is never half-redacted). */
let known: string[] = [];
/** One pattern: the known values (escaped), then key-shaped strings; one pass per string. */
let pattern = new RegExp(CREDENTIAL.source, 'g');

/**
 * Adds the configured provider keys of a runtime to the values redacted by exact match. Called
 * by compile() for every runtime (reloads included); values of an older runtime stay known, so
 * a key rotated out is still never shown.
 */
export function rememberSecrets(values: Iterable<string | undefined>): void {
  const next = new Set(known);
  for (const v of values) if (typeof v === 'string' && v.trim().length >= MIN_SECRET_LENGTH) next.add(v.trim());
  if (next.size === known.length) return;
  known = [...next].sort((a, b) => b.length - a.length);
  pattern = new RegExp([...known.map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), CREDENTIAL.source].join('|'), 'g');
}

/** Replaces every configured provider key and anything that looks like an API key or bearer token with `[redacted]`. */
export function redactSecrets(text: string): string {
  return text.replace(pattern, REDACTED);
}

/** A JSON-like value with every string redacted (log fields, error details); copied only where something changed. */
export function redactValue<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return redactSecrets(value) as T;
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { type: value.name, message: redactSecrets(value.message) } as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactValue(v, depth + 1)) as T;
  // Copy on write: a log line with nothing to redact (the usual case) is returned as it is.
  let out: Record<string, unknown> | undefined;
  for (const k in value as Record<string, unknown>) {
    const v = (value as Record<string, unknown>)[k];
    const r = redactValue(v, depth + 1);
    if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
  }
  return (out ?? value) as T;
}
