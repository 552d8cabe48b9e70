/** A plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses JSON text; undefined instead of throwing when the text is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Parses tool-call arguments (JSON text) into an object. Empty text means `{}` (Anthropic's
 * rule for an empty input_json_delta sequence); text that is not a JSON object yields undefined.
 */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  const value = parseJson(text);
  return isRecord(value) ? value : undefined;
}

/** The string at `value` or undefined: a typed read of untrusted JSON. */
export function readString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The finite number at `value` or undefined. */
export function readNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The boolean at `value` or undefined. */
export function readBoolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** A JSON object (not null, not an array). */
export type JsonObject = Record<string, unknown>;

/** `value` when it is a JSON object, else an empty object. */
export function asObject(value: unknown): JsonObject {
  return isRecord(value) ? value : {};
}

/** `value` when it is an array, else an empty array. */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
