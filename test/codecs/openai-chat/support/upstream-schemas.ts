/**
 * Validators for the requests dialects send, built from the providers' published OpenAPI
 * documents in ../shared/openapi (see its README). Loaded once per process.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Validates one request body; returns readable errors (empty when valid). */
export type RequestValidator = (body: unknown) => string[];

let ajv: Ajv2020.default | undefined;

/**
 * The two documents use OpenAPI-isms ajv refuses at compile time: `nullable` without a `type`
 * (openai.json) and `type: null` (anthropic.json, schema `Model`). Both are dropped; neither
 * constrains a request the gateway builds.
 */
function prepareForAjv(node: Json): Json {
  if (Array.isArray(node)) return node.map(prepareForAjv);
  if (node === null || typeof node !== 'object') return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' && value === null) continue;
    out[key] = prepareForAjv(value);
  }
  if ('nullable' in out && !('type' in out)) delete out.nullable;
  return out;
}

function readDocument(name: string): { [key: string]: Json } {
  const file = path.resolve(process.cwd(), '../shared/openapi', name);
  return prepareForAjv(JSON.parse(readFileSync(file, 'utf8')) as Json) as { [key: string]: Json };
}

type Schemas = { [key: string]: { [key: string]: Json } };

/**
 * anthropic.json is Anthropic's hosted document of 2024-11-08. The live API accepts fields added
 * since, which the gateway sends; they are allowed here explicitly, each named:
 * - request `thinking` ({type:enabled,budget_tokens} | {type:adaptive} | {type:disabled}) and
 *   `output_config` ({effort, format:{type:json_schema, schema}});
 * - content blocks `thinking` {thinking, signature} and `redacted_thinking` {data} in messages;
 * - image source `{type:'url', url}` and `{type:'file', file_id}` (only base64 in 2024);
 * - `tool_choice` `{type:'none'}`;
 * - tool `strict`.
 */
function allowNewerAnthropicFields(doc: { [key: string]: Json }): void {
  const schemas = (doc.components as { schemas: Schemas }).schemas;
  const params = schemas.CreateMessageParams!;
  const props = params.properties as { [key: string]: Json };
  props.thinking = {
    oneOf: [
      { type: 'object', additionalProperties: false, required: ['type', 'budget_tokens'], properties: { type: { const: 'enabled' }, budget_tokens: { type: 'integer', minimum: 1024 } } },
      { type: 'object', additionalProperties: false, required: ['type'], properties: { type: { enum: ['adaptive', 'disabled'] } } },
    ],
  };
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
    properties: { type: { const: 'thinking' }, thinking: { type: 'string' }, signature: { type: 'string' } },
  };
  schemas.RequestRedactedThinkingBlock = {
    type: 'object', additionalProperties: false, required: ['type', 'data'],
    properties: { type: { const: 'redacted_thinking' }, data: { type: 'string' } },
  };
  const content = ((schemas.InputMessage!.properties as { [key: string]: Json }).content as { anyOf: Json[] }).anyOf[1] as { items: { oneOf: Json[]; discriminator?: Json } };
  content.items.oneOf.push({ $ref: '#/components/schemas/RequestThinkingBlock' }, { $ref: '#/components/schemas/RequestRedactedThinkingBlock' });
  delete content.items.discriminator;
  const imageSource = (schemas.RequestImageBlock!.properties as { [key: string]: { oneOf: Json[]; discriminator?: Json } }).source!;
  imageSource.oneOf.push(
    { type: 'object', additionalProperties: false, required: ['type', 'url'], properties: { type: { const: 'url' }, url: { type: 'string' } } },
    { type: 'object', additionalProperties: false, required: ['type', 'file_id'], properties: { type: { const: 'file' }, file_id: { type: 'string' } } },
  );
  delete imageSource.discriminator;
  schemas.ToolChoiceNone = { type: 'object', additionalProperties: false, required: ['type'], properties: { type: { const: 'none' } } };
  const toolChoice = schemas.ToolChoice as { oneOf: Json[]; discriminator?: Json };
  toolChoice.oneOf.push({ $ref: '#/components/schemas/ToolChoiceNone' });
  delete toolChoice.discriminator;
  (schemas.Tool!.properties as { [key: string]: Json }).strict = { type: 'boolean' };
}

function load(): Ajv2020.default {
  if (ajv) return ajv;
  ajv = new Ajv2020.default({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(readDocument('openai.json'), 'openai.json');
  const anthropic = readDocument('anthropic.json');
  allowNewerAnthropicFields(anthropic);
  ajv.addSchema(anthropic, 'anthropic.json');
  return ajv;
}

/** The validator of a request schema, e.g. `openai.json#/components/schemas/CreateChatCompletionRequest`. */
export function requestValidator(ref: string): RequestValidator {
  const validate = load().getSchema(ref);
  if (!validate) throw new Error(`No schema at ${ref}`);
  return (body) => (validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`));
}
