import { isRecord } from '../codecs/shared/json.js';
import { decodeBase64Strict } from '../codecs/shared/base64.js';
import { estimateAudioSeconds, readWavSeconds } from './audio-duration.js';
import type { PricingUnit } from './pricing.js';
import { ESTIMATE_CHARS_PER_TOKEN, countTokensWorstCase } from './token-counter.js';

/**
 * Billing units of non-text operations (images, audio, video, embeddings, rerank, realtime ...),
 * one rule per pricing unit and none per endpoint: each rule reads generic request fields
 * before the call (worst case) and generic result fields after it (what was delivered).
 */

/** The request as unit rules see it. */
export interface UnitRequest {
  body: Readonly<Record<string, unknown>>;
  /** Bytes of a file the caller uploaded (for `file_id` audio), when available. */
  readFile?: (fileId: string) => Promise<Uint8Array | undefined>;
  /**
   * Bytes of an uploaded multipart part (the body's `file` field), when `value` is one; the
   * caller knows the upload's type (billing knows no mapping transport).
   */
  readUpload?: (value: unknown) => Promise<Uint8Array> | undefined;
}

/** The result as unit rules see it. */
export interface UnitResult {
  /** JSON body, when the result is JSON. */
  body?: Readonly<Record<string, unknown>>;
  /** Raw bytes, when the result is bytes held in memory. */
  bytes?: Uint8Array;
  headers?: Readonly<Record<string, string>>;
}

/** A worst-case quantity; `bound` = a cap the session is held to at run time (never refused). */
export interface UnitEstimate { quantity: number; bound?: boolean }

interface UnitRule {
  estimate(request: UnitRequest): Promise<UnitEstimate>;
  measure(result: UnitResult, request: UnitRequest, estimate: UnitEstimate): number;
}

/** Worst-case speech length per character of text: 0.15 s (slow speech with pauses). */
export const SPEECH_SECONDS_PER_CHAR = 0.15;
/** Documents per search unit (Cohere's definition: one query over up to 100 documents). */
export const DOCUMENTS_PER_SEARCH_UNIT = 100;

// Request fields that hold text the provider reads (and bills) as input.
const TEXT_FIELDS = ['input', 'prompt', 'query', 'documents', 'instructions', 'negative_prompt', 'text'];

const zero: UnitRule = { estimate: async () => ({ quantity: 0 }), measure: () => 0 };

const rules: Record<PricingUnit, UnitRule> = {
  prompt: {
    estimate: async (r) => ({ quantity: await countTokensWorstCase(requestText(r.body)) }),
    measure: (res, r) => usageNumber(res.body, ['prompt_tokens', 'input_tokens', 'total_tokens']) ?? Math.ceil(requestText(r.body).length / ESTIMATE_CHARS_PER_TOKEN),
  },
  completion: {
    estimate: async () => ({ quantity: 0 }),
    measure: (res) => usageNumber(res.body, ['completion_tokens', 'output_tokens']) ?? 0,
  },
  input_cache_read: zero,
  input_cache_write: zero,
  internal_reasoning: zero,
  request: { estimate: async () => ({ quantity: 1 }), measure: () => 1 },
  image: {
    estimate: async (r) => ({ quantity: positiveInt(r.body.n) ?? 1 }),
    measure: (res, _r, est) => arrayLength(res.body?.data) ?? arrayLength(res.body?.images) ?? est.quantity,
  },
  audio_second: {
    estimate: estimateAudioSecondsOf,
    measure: (res, _r, est) =>
      positive(res.body?.duration_seconds)
      ?? usageSeconds(res.body)
      ?? positive(Number(res.headers?.['x-audio-duration-seconds']))
      ?? (res.bytes ? readWavSeconds(res.bytes) : undefined)
      ?? (est.bound ? 0 : est.quantity),
  },
  video_second: {
    estimate: async (r) => (positive(r.body.duration_seconds) !== undefined ? { quantity: positive(r.body.duration_seconds)! } : { quantity: positive(r.body.max_duration_seconds) ?? 0, bound: true }),
    measure: (res, _r, est) => positive(res.body?.duration_seconds) ?? (est.bound ? 0 : est.quantity),
  },
  character: {
    estimate: async (r) => ({ quantity: [...requestText(r.body)].length }),
    measure: (res, r) => usageNumber(res.body, ['characters', 'character_count']) ?? [...requestText(r.body)].length,
  },
  search_unit: {
    estimate: async (r) => ({ quantity: searchUnits(r.body) }),
    measure: (res, r) => usageNumber(res.body, ['search_units']) ?? billedUnits(res.body, 'search_units') ?? searchUnits(r.body),
  },
};

/** Worst-case quantity of a unit for a request. */
export function estimateUnit(unit: PricingUnit, request: UnitRequest): Promise<UnitEstimate> {
  return rules[unit].estimate(request);
}

/** Delivered quantity of a unit, read from the result (falling back to the request). */
export function measureUnit(unit: PricingUnit, result: UnitResult, request: UnitRequest, estimate: UnitEstimate): number {
  return rules[unit].measure(result, request, estimate);
}

/** The text a request sends as input (the TEXT_FIELDS, strings and arrays of strings). */
export function requestText(body: Readonly<Record<string, unknown>>): string {
  const out: string[] = [];
  for (const field of TEXT_FIELDS) {
    const v = body[field];
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) for (const item of v) if (typeof item === 'string') out.push(item);
  }
  return out.join('\n');
}

async function estimateAudioSecondsOf(r: UnitRequest): Promise<UnitEstimate> {
  const exact = positive(r.body.duration_seconds);
  if (exact !== undefined) return { quantity: exact };
  const bound = positive(r.body.max_duration_seconds);
  if (bound !== undefined) return { quantity: bound, bound: true };
  const audio = await readRequestAudio(r);
  if (audio) return { quantity: estimateAudioSeconds(audio) };
  const text = requestText(r.body);
  return { quantity: [...text].length * SPEECH_SECONDS_PER_CHAR };
}

async function readRequestAudio(r: UnitRequest): Promise<Uint8Array | undefined> {
  const upload = r.readUpload?.(r.body.file);
  if (upload) return upload;
  const encoded = r.body.audio_base64;
  if (typeof encoded === 'string' && encoded.length > 0) {
    const comma = encoded.startsWith('data:') ? encoded.indexOf(',') : -1;
    return decodeBase64Strict(comma >= 0 ? encoded.slice(comma + 1) : encoded);
  }
  if (typeof r.body.file_id === 'string' && r.readFile) return r.readFile(r.body.file_id);
  return undefined;
}

function usageNumber(body: Readonly<Record<string, unknown>> | undefined, names: readonly string[]): number | undefined {
  const usage = body?.usage;
  if (!isRecord(usage)) return undefined;
  for (const n of names) {
    const v = usage[n];
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  }
  return undefined;
}

function usageSeconds(body: Readonly<Record<string, unknown>> | undefined): number | undefined {
  const usage = body?.usage;
  return isRecord(usage) ? positive(usage.seconds) : undefined;
}

function billedUnits(body: Readonly<Record<string, unknown>> | undefined, name: string): number | undefined {
  const meta = body?.meta;
  const billed = isRecord(meta) && isRecord(meta.billed_units) ? meta.billed_units[name] : undefined;
  return typeof billed === 'number' && billed >= 0 ? billed : undefined;
}

function searchUnits(body: Readonly<Record<string, unknown>>): number {
  const docs = Array.isArray(body.documents) ? body.documents.length : 0;
  return Math.max(1, Math.ceil(docs / DOCUMENTS_PER_SEARCH_UNIT));
}

function positive(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined;
}

function arrayLength(v: unknown): number | undefined {
  return Array.isArray(v) ? v.length : undefined;
}
