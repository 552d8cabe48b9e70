import { decodeBase64Strict } from '../../codecs/shared/base64.js';
import { errors } from '../../errors/gateway-error.js';

/**
 * Readers of client body fields. The engine validated the body against the route schema already;
 * these re-check the few fields the sandbox relies on so a direct call can never crash it.
 */

/** A string field, or undefined when absent. Throws 400 `invalid_field` when it has another type. */
export function readString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw errors.invalidRequest(`'${field}' must be a string.`, 'invalid_field', { field });
  return value;
}

/** A required non-empty string field. */
export function requireString(body: Record<string, unknown>, field: string): string {
  const value = readString(body, field);
  if (value === undefined || value.length === 0) {
    throw errors.invalidRequest(`'${field}' is required and must be a non-empty string.`, 'missing_field', { field });
  }
  return value;
}

/** A finite number field, or undefined when absent. */
export function readNumber(body: Record<string, unknown>, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw errors.invalidRequest(`'${field}' must be a number.`, 'invalid_field', { field });
  }
  return value;
}

/** An integer field within [min, max], or undefined when absent. */
export function readInteger(body: Record<string, unknown>, field: string, min: number, max: number): number | undefined {
  const value = readNumber(body, field);
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw errors.invalidRequest(`'${field}' must be an integer from ${min} to ${max}.`, 'invalid_field', { field, min, max });
  }
  return value;
}

/** Base64 text (standard or url-safe alphabet, whitespace ignored) -> bytes; 400 `invalid_base64` when it is not base64. */
export function decodeBase64Field(text: string, field: string): Buffer {
  const bytes = decodeBase64Strict(text);
  if (!bytes || bytes.length === 0) throw errors.invalidRequest(`'${field}' is not valid base64.`, 'invalid_base64', { field });
  return bytes;
}
