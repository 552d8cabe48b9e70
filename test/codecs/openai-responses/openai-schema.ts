/**
 * Validators for OpenAI's published OpenAPI document (../shared/openapi/openai.json), loaded with
 * ajv 2020 (strict:false) as one schema and referenced by `openai.json#/components/schemas/<Name>`.
 * ajv cannot run OpenAPI `discriminator`s, and the document's discriminated `oneOf`s are not
 * mutually exclusive without them (a user message with a content list matches both
 * EasyInputMessage and InputMessage), so each discriminated `oneOf` is read as `anyOf`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

let ajv: Ajv2020 | undefined;
let document: Record<string, unknown> | undefined;

function relaxDiscriminators(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relaxDiscriminators);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  const record = node as Record<string, unknown>;
  const discriminated = record.discriminator !== undefined && Array.isArray(record.oneOf);
  for (const [key, value] of Object.entries(record)) {
    if (key === 'discriminator') continue;
    out[discriminated && key === 'oneOf' ? 'anyOf' : key] = relaxDiscriminators(value);
  }
  return out;
}

function loadAjv(): Ajv2020 {
  if (ajv !== undefined) return ajv;
  const doc = JSON.parse(readFileSync(path.resolve(process.cwd(), '../shared/openapi/openai.json'), 'utf8')) as Record<string, unknown>;
  document = doc;
  ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  addFormats.default(ajv);
  ajv.addFormat('unixtime', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 });
  ajv.addSchema(relaxDiscriminators(doc) as Record<string, unknown>, 'openai.json');
  return ajv;
}

/** The validator of one component schema, e.g. `CreateResponse`. */
export function openAiValidator(name: string): ValidateFunction {
  const validate = loadAjv().getSchema(`openai.json#/components/schemas/${name}`);
  if (validate === undefined) throw new Error(`openai.json has no schema ${name}`);
  return validate;
}

/** Readable ajv errors for assertion messages. */
export function describeErrors(validate: ValidateFunction): string {
  return JSON.stringify((validate.errors ?? []).slice(0, 8), null, 1);
}

/**
 * The validator of one Responses stream event, chosen by its `type` among the members of
 * `ResponseStreamEvent` (validating against the union only reports every member's mismatch).
 */
export function streamEventValidator(type: string): ValidateFunction {
  loadAjv();
  const schemas = ((document?.components as Record<string, unknown>).schemas ?? {}) as Record<string, Record<string, unknown>>;
  const members = (schemas.ResponseStreamEvent?.anyOf ?? schemas.ResponseStreamEvent?.oneOf ?? []) as Array<{ $ref?: string }>;
  for (const member of members) {
    const name = member.$ref?.split('/').pop();
    const properties = name !== undefined ? (schemas[name]?.properties as Record<string, { enum?: unknown[] }> | undefined) : undefined;
    if (name !== undefined && properties?.type?.enum?.includes(type)) return openAiValidator(name);
  }
  throw new Error(`ResponseStreamEvent has no member of type ${type}`);
}
