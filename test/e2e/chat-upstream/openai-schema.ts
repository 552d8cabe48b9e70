import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

let validator: ValidateFunction | undefined;

/**
 * Turns the OpenAPI-only keywords of the document into JSON Schema ajv can run:
 * - `discriminator`s: without them the document's discriminated `oneOf`s overlap (a message can
 *   match two branches), so each discriminated `oneOf` is read as `anyOf`;
 * - `nullable: true` (OpenAPI 3.0 style, still used by this 3.1 document): `null` is added to
 *   `type` (and to `enum`), or the schema becomes `anyOf [schema, {type: null}]` when it has no type.
 */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (typeof node !== 'object' || node === null) return node;
  const record = node as Record<string, unknown>;
  const discriminated = record.discriminator !== undefined && Array.isArray(record.oneOf);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === 'discriminator' || key === 'nullable') continue;
    out[discriminated && key === 'oneOf' ? 'anyOf' : key] = key === 'properties' || key === '$defs' ? mapValues(value) : toJsonSchema(value);
  }
  if (record.nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

/** `properties` maps names to schemas: convert each schema, never the map itself. */
function mapValues(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, toJsonSchema(v)]));
}

/**
 * The validator of OpenAI's `CreateChatCompletionRequest` from the published OpenAPI document
 * (../shared/openapi/openai.json), ajv draft 2020-12 with `strict: false` and ajv-formats;
 * compiled once per process.
 */
export function chatRequestValidator(): ValidateFunction {
  if (validator) return validator;
  const doc = JSON.parse(readFileSync(resolve(process.cwd(), '../shared/openapi/openai.json'), 'utf8')) as unknown;
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  addFormats.default(ajv);
  ajv.addSchema(toJsonSchema(doc) as Record<string, unknown>, 'openai.json');
  const found = ajv.getSchema('openai.json#/components/schemas/CreateChatCompletionRequest');
  if (!found) throw new Error('openai.json has no CreateChatCompletionRequest');
  validator = found;
  return validator;
}

/** Validation errors of a chat request (empty when OpenAI's schema accepts it). */
export function checkChatRequest(body: unknown): string[] {
  const validate = chatRequestValidator();
  if (validate(body)) return [];
  return (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
}
