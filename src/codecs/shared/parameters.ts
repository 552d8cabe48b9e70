import type { DialectTarget } from '../codec.js';
import { listsCapability } from './parameter-spellings.js';

/**
 * Whether the target model accepts a parameter under any spelling of its capability
 * (parameter-spellings.ts: `stop` stands for `stop_sequences` too, `reasoning` for
 * `reasoning_effort` and `thinking` ...), so callers name it once.
 * An empty `supportedParameters` set means the catalog lists none, which we read as
 * "unrestricted" rather than "accepts nothing": a model without a `parameters` list still gets
 * the client's sampling settings.
 */
export function allowsParameter(target: DialectTarget, name: string): boolean {
  if (target.supportedParameters.size === 0) return true;
  return listsCapability(target.supportedParameters, name);
}

/** Whether the catalog lists the parameter explicitly (for non-standard extras like `top_k`). */
export function listsParameter(target: DialectTarget, name: string): boolean {
  return target.supportedParameters.has(name);
}

/** Clamps `value` into [min, max]. */
export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
