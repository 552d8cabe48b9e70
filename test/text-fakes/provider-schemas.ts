/**
 * Request validators of the fake upstreams, built from the providers' own published OpenAPI
 * documents (../shared/openapi, see its README): OpenAI's `CreateChatCompletionRequest` and
 * `CreateResponse`, Anthropic's `CreateMessageParams`. Loaded once per process with ajv 2020
 * (strict: false, ajv-formats); each document is added whole and referenced by
 * `<doc>#/components/schemas/<Name>`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Validates one request body; returns readable findings (empty when valid). */
export type RequestValidator = (body: unknown) => string[];

let ajv: Ajv2020.default | undefined;
const validators = new Map<string, RequestValidator>();

/**
 * OpenAPI-isms ajv refuses or misreads, rewritten without loosening what they say:
 * - `discriminator` + `oneOf`: ajv cannot run OpenAPI discriminators, and without them the
 *   document's alternatives overlap (a user message with a content list matches two of them),
 *   so a discriminated `oneOf` is read as `anyOf`;
 * - `type: null` (anthropic.json `Model`) is not JSON Schema: dropped (its anyOf stays);
 * - `nullable` without `type` cannot compile: dropped.
 */
function prepareForAjv(node: Json): Json {
  if (Array.isArray(node)) return node.map(prepareForAjv);
  if (node === null || typeof node !== 'object') return node;
  const discriminated = node.discriminator !== undefined && Array.isArray(node.oneOf);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'discriminator') continue;
    if (key === 'type' && value === null) continue;
    out[discriminated && key === 'oneOf' ? 'anyOf' : key] = prepareForAjv(value);
  }
  if ('nullable' in out && !('type' in out)) delete out.nullable;
  return out;
}

function readDocument(name: string): JsonObject {
  const file = path.resolve(process.cwd(), '../shared/openapi', name);
  return prepareForAjv(JSON.parse(readFileSync(file, 'utf8')) as Json) as JsonObject;
}

function schemasOf(doc: JsonObject): { [name: string]: JsonObject } {
  return (doc.components as { schemas: { [name: string]: JsonObject } }).schemas;
}

/**
 * anthropic.json is Anthropic's hosted document of 2024-11-08. The live Messages API accepts
 * fields added since (https://docs.anthropic.com/en/api/messages), which the gateway sends; each
 * is allowed here explicitly, and nothing else is loosened:
 * - `thinking`: `{type:'enabled', budget_tokens >= 1024}` | `{type:'adaptive'}` | `{type:'disabled'}`
 *   (extended / adaptive thinking);
 * - `output_config`: `{effort, format:{type:'json_schema', schema}}` (effort, structured outputs);
 * - content blocks `thinking` `{thinking, signature}` and `redacted_thinking` `{data}` in
 *   messages (echoed back in multi-turn tool use with thinking);
 * - image source `{type:'url', url}` and `{type:'file', file_id}` (2024 only had base64);
 * - `tool_choice` `{type:'none'}`;
 * - tool `strict` (strict tool use);
 * - request `service_tier`: `auto` | `standard_only` (Priority Tier).
 */
function allowNewerAnthropicFields(doc: JsonObject): void {
  const schemas = schemasOf(doc);
  const props = schemas.CreateMessageParams!.properties as JsonObject;
  props.thinking = {
    anyOf: [
      { type: 'object', additionalProperties: false, required: ['type', 'budget_tokens'], properties: { type: { const: 'enabled' }, budget_tokens: { type: 'integer', minimum: 1024 } } },
      { type: 'object', additionalProperties: false, required: ['type'], properties: { type: { enum: ['adaptive', 'disabled'] } } },
    ],
  };
  props.service_tier = { enum: ['auto', 'standard_only'] };
  props.output_config = {
    type: 'object',
    additionalProperties: false,
    properties: {
      effort: { enum: ['low', 'medium', 'high', 'xhigh', 'max'] },
      format: { type: 'object', additionalProperties: false, required: ['type', 'schema'], properties: { type: { const: 'json_schema' }, schema: { type: 'object' } } },
    },
  };
  schemas.RequestThinkingBlock = {
    type: 'object', additionalProperties: false, required: ['type', 'thinking', 'signature'],
    properties: { type: { const: 'thinking' }, thinking: { type: 'string' }, signature: { type: 'string', minLength: 1 } },
  };
  schemas.RequestRedactedThinkingBlock = {
    type: 'object', additionalProperties: false, required: ['type', 'data'],
    properties: { type: { const: 'redacted_thinking' }, data: { type: 'string', minLength: 1 } },
  };
  const content = ((schemas.InputMessage!.properties as JsonObject).content as { anyOf: Json[] }).anyOf[1] as { items: { anyOf: Json[] } };
  content.items.anyOf.push({ $ref: '#/components/schemas/RequestThinkingBlock' }, { $ref: '#/components/schemas/RequestRedactedThinkingBlock' });
  const imageSource = (schemas.RequestImageBlock!.properties as { [key: string]: { anyOf: Json[] } }).source!;
  imageSource.anyOf.push(
    { type: 'object', additionalProperties: false, required: ['type', 'url'], properties: { type: { const: 'url' }, url: { type: 'string', format: 'uri' } } },
    { type: 'object', additionalProperties: false, required: ['type', 'file_id'], properties: { type: { const: 'file' }, file_id: { type: 'string' } } },
  );
  schemas.ToolChoiceNone = { type: 'object', additionalProperties: false, required: ['type'], properties: { type: { const: 'none' } } };
  (schemas.ToolChoice as { anyOf: Json[] }).anyOf.push({ $ref: '#/components/schemas/ToolChoiceNone' });
  (schemas.Tool!.properties as JsonObject).strict = { type: 'boolean' };
}

function loadAjv(): Ajv2020.default {
  if (ajv) return ajv;
  ajv = new Ajv2020.default({ strict: false, allErrors: true, logger: false });
  addFormats.default(ajv);
  // openai.json uses a custom `unixtime` format on some fields; any non-negative integer.
  ajv.addFormat('unixtime', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 });
  ajv.addSchema(readDocument('openai.json'), 'openai.json');
  const anthropic = readDocument('anthropic.json');
  allowNewerAnthropicFields(anthropic);
  ajv.addSchema(anthropic, 'anthropic.json');
  return ajv;
}

/** The validator of one component schema, e.g. `requestValidator('openai.json', 'CreateResponse')`. */
export function requestValidator(document: 'openai.json' | 'anthropic.json', schema: string): RequestValidator {
  const ref = `${document}#/components/schemas/${schema}`;
  const cached = validators.get(ref);
  if (cached) return cached;
  const validate = loadAjv().getSchema(ref);
  if (!validate) throw new Error(`No schema at ${ref}`);
  const validator: RequestValidator = (body) =>
    validate(body) ? [] : (validate.errors ?? []).slice(0, 12).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
  validators.set(ref, validator);
  return validator;
}
