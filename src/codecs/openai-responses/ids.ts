import { createHash, randomBytes } from 'node:crypto';

/**
 * Ids of Responses objects. Item ids are derived from the response id and the item position, so the
 * same answer always encodes to the same body (stable golden files, idempotent re-encoding).
 */

/** A random hex suffix for ids the upstream did not provide. */
export function makeRandomSuffix(bytes = 12): string {
  return randomBytes(bytes).toString('hex');
}

/** Keeps only the characters OpenAI-style ids use. */
function sanitize(value: string): string {
  return value.replace(/[^A-Za-z0-9_]/g, '');
}

/** `resp_...` id for an internal answer id (kept as is when it already is one). */
export function toResponseId(internalId: string): string {
  if (internalId.startsWith('resp_')) return internalId;
  const clean = sanitize(internalId);
  return `resp_${clean.length > 0 ? clean : makeRandomSuffix()}`;
}

/** The part of a response id after `resp_`, used to derive item ids. */
function baseOf(responseId: string): string {
  return responseId.startsWith('resp_') ? responseId.slice(5) : sanitize(responseId);
}

/** Output item id: `msg_`, `fc_` or `rs_` + response base + position. */
export function makeItemId(prefix: 'msg' | 'fc' | 'rs', responseId: string, position: number): string {
  return `${prefix}_${baseOf(responseId)}_${position}`;
}

/**
 * The reasoning item id the gateway shows for encrypted reasoning that came without an OpenAI id
 * (e.g. Anthropic redacted_thinking). Derived from the data, so when the client passes the item
 * back the surface recognises the id as synthetic and restores the data untouched.
 */
export function makeSyntheticReasoningId(data: string): string {
  return `rs_gw${createHash('sha256').update(data).digest('hex').slice(0, 40)}`;
}
