/**
 * Small helpers for reading untrusted JSON bodies (client requests, upstream answers) without `any`.
 * Shared by the codecs in openai-responses/, gemini/, research/ and robotics/.
 */

/** A JSON object (not null, not an array). */
export type JsonObject = Record<string, unknown>;

/** True when `value` is a plain JSON object. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` when it is a JSON object, else an empty object. */
export function asObject(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

/** `value` when it is an array, else an empty array. */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** `value` when it is a string, else undefined. */
export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `value` when it is a finite number, else undefined. */
export function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** `value` when it is a boolean, else undefined. */
export function asBoolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined;
}

/** Parses JSON text, or returns undefined when it is not valid JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
