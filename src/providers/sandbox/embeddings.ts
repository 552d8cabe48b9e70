import { errors } from '../../errors/gateway-error.js';
import type { OperationCall, OperationResult } from '../types.js';
import { hashString32 } from './hash.js';
import { countTokens } from './token-estimate.js';

/** Dimension when neither the request nor the model card (`architecture.default_dimensions`) says. */
const DEFAULT_DIMENSIONS = 256;
const MAX_DIMENSIONS = 8192;
/** Same cap as OpenAI's embeddings endpoint. */
const MAX_INPUTS = 2048;
const DTYPES = ['float', 'int8', 'uint8', 'binary', 'ubinary'] as const;
type Dtype = (typeof DTYPES)[number];

/** One text to embed: its text form (token ids become `tok<id>` words) and its token count. */
interface EmbeddingInput { text: string; tokens: number }

/**
 * `embeddings`: deterministic unit vectors by feature hashing (words weigh 1, character trigrams
 * 0.5, each feature hashed to an index and a sign) so texts sharing words are close in cosine.
 * Dimension: `dimensions` | `output_dimensionality` | `output_dimension`, default from the model.
 * `output_dtype` follows Voyage (https://docs.voyageai.com/docs/flexible-dimensions-and-quantization):
 * int8/uint8 scale each value, binary/ubinary bit-pack signs MSB first (binary = ubinary - 128).
 * `encoding_format: 'base64'` returns little-endian float32 bytes (the OpenAI SDK default), or the
 * raw int8/uint8 bytes for the integer dtypes. `input_type` and `truncation` are accepted and
 * ignored (queries and documents share one space; nothing is long enough to truncate).
 */
export async function createEmbeddings(call: OperationCall): Promise<OperationResult> {
  const body = call.body;
  const inputs = readInputs(body.input);
  const dimensions = readDimensions(body, call.model.architecture?.default_dimensions);
  const dtype = readDtype(body.output_dtype);
  if ((dtype === 'binary' || dtype === 'ubinary') && dimensions % 8 !== 0) {
    throw errors.invalidRequest(`output_dtype '${dtype}' packs 8 dimensions per byte: the dimension (${dimensions}) must be a multiple of 8.`, 'invalid_dimensions', { dimensions, output_dtype: dtype });
  }
  const encoding = body.encoding_format ?? 'float';
  if (encoding !== 'float' && encoding !== 'base64') {
    throw errors.invalidRequest(`encoding_format must be 'float' or 'base64'.`, 'invalid_encoding_format', { encoding_format: encoding });
  }
  const data = inputs.map((input, index) => {
    const values = quantizeVector(embedText(input.text, dimensions), dtype);
    return { object: 'embedding', index, embedding: encoding === 'base64' ? encodeVectorBase64(values, dtype) : Array.from(values) };
  });
  const tokens = inputs.reduce((n, input) => n + input.tokens, 0);
  return { kind: 'json', body: { object: 'list', data, model: call.model.id, usage: { prompt_tokens: tokens, total_tokens: tokens } } };
}

/** A unit vector of `dimensions` values for a text (deterministic). */
export function embedText(text: string, dimensions: number): Float64Array {
  const vector = new Float64Array(dimensions);
  const add = (feature: string, weight: number): void => {
    const h = hashString32(feature);
    vector[h % dimensions]! += (h & 0x80000000 ? -1 : 1) * weight;
  };
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []) {
    add(`w:${word}`, 1);
    const padded = ` ${word} `;
    for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, 0.5);
  }
  let norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
  if (norm === 0) {
    // No word at all (empty or punctuation only): a fixed direction seeded by the raw text.
    add(`raw:${text}`, 1);
    norm = 1;
  }
  for (let i = 0; i < dimensions; i++) vector[i]! /= norm;
  return vector;
}

function readInputs(input: unknown): EmbeddingInput[] {
  const invalid = (): never => {
    throw errors.invalidRequest("'input' must be a string, an array of strings, an array of token ids or an array of token-id arrays.", 'invalid_input');
  };
  const fromTokens = (ids: unknown[]): EmbeddingInput => {
    if (ids.length === 0 || !ids.every((t) => Number.isInteger(t) && (t as number) >= 0)) invalid();
    return { text: ids.map((t) => `tok${t as number}`).join(' '), tokens: ids.length };
  };
  let inputs: EmbeddingInput[];
  if (typeof input === 'string') inputs = [{ text: input, tokens: countTokens(input) }];
  else if (!Array.isArray(input) || input.length === 0) return invalid();
  else if (input.every((item) => typeof item === 'string')) inputs = (input as string[]).map((text) => ({ text, tokens: countTokens(text) }));
  else if (input.every((item) => typeof item === 'number')) inputs = [fromTokens(input)];
  else if (input.every((item) => Array.isArray(item))) inputs = (input as unknown[][]).map(fromTokens);
  else return invalid();
  if (inputs.length > MAX_INPUTS) throw errors.invalidRequest(`At most ${MAX_INPUTS} inputs per request.`, 'too_many_inputs', { max: MAX_INPUTS });
  return inputs;
}

function readDimensions(body: Record<string, unknown>, modelDefault: unknown): number {
  const given = (['dimensions', 'output_dimensionality', 'output_dimension'] as const).filter((f) => body[f] !== undefined && body[f] !== null);
  const values = new Set(given.map((f) => body[f]));
  if (values.size > 1) {
    throw errors.invalidRequest(`${given.join(', ')} disagree; send one dimension.`, 'invalid_dimensions', { fields: given });
  }
  const value = given.length > 0 ? body[given[0]!] : typeof modelDefault === 'number' ? modelDefault : DEFAULT_DIMENSIONS;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_DIMENSIONS) {
    throw errors.invalidRequest(`The dimension must be an integer from 1 to ${MAX_DIMENSIONS}.`, 'invalid_dimensions', { dimensions: value });
  }
  return value;
}

function readDtype(value: unknown): Dtype {
  if (value === undefined || value === null) return 'float';
  if (!DTYPES.includes(value as Dtype)) {
    throw errors.invalidRequest(`output_dtype must be one of ${DTYPES.join(', ')}.`, 'invalid_output_dtype', { output_dtype: value });
  }
  return value as Dtype;
}

/** Float values -> the requested dtype (float32 precision for `float`). */
function quantizeVector(vector: Float64Array, dtype: Dtype): Float32Array | Int8Array | Uint8Array {
  switch (dtype) {
    case 'float': return Float32Array.from(vector);
    case 'int8': return Int8Array.from(vector, (v) => Math.max(-128, Math.min(127, Math.round(v * 127))));
    case 'uint8': return Uint8Array.from(vector, (v) => Math.max(0, Math.min(255, Math.round((v + 1) * 127.5))));
    default: {
      const packed = new Uint8Array(vector.length / 8);
      vector.forEach((v, i) => { if (v > 0) packed[i >> 3]! |= 0x80 >> (i & 7); });
      return dtype === 'ubinary' ? packed : Int8Array.from(packed, (b) => b - 128);
    }
  }
}

function encodeVectorBase64(values: Float32Array | Int8Array | Uint8Array, dtype: Dtype): string {
  if (dtype !== 'float') return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
  return bytes.toString('base64');
}
