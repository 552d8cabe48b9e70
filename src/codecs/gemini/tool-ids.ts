/**
 * Gemini's functionCall.id is optional and often absent
 * (https://ai.google.dev/api/caching#FunctionCall), while every other format needs tool call ids.
 * The gateway synthesizes `call_gm_<response>_<n>` ids; they are never sent back to Gemini, where
 * results are matched to calls by name and order instead.
 */
const SYNTHETIC_PREFIX = 'call_gm_';

/** A stable tool call id for the n-th call (from 0) of one upstream response. */
export function makeSyntheticCallId(responseBase: string, position: number): string {
  return `${SYNTHETIC_PREFIX}${responseBase.replace(/[^A-Za-z0-9]/g, '').slice(0, 32)}_${position}`;
}

/** True for ids the gateway made up (not to be echoed to Gemini as functionCall.id). */
export function isSyntheticCallId(id: string): boolean {
  return id.startsWith(SYNTHETIC_PREFIX);
}
