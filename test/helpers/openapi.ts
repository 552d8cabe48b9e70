/**
 * Validators built from the providers' published OpenAPI documents in test/fixtures/openapi (copied from the project's shared/openapi; see its
 * README): OpenAI's openai.json and Anthropic's anthropic.json. Every test that checks a body
 * against a provider's schema goes through here, so all of them read the documents the same way.
 *
 * One ajv instance (draft 2020-12, `strict: false`, `allErrors`, ajv-formats); each document is
 * read, rewritten into plain JSON Schema (see `toJsonSchema`) and added whole on first use, once
 * per process, and referenced as `<doc>#/components/schemas/<Name>`. Validators are cached.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | JsonObject;
/** A JSON object (a schema node, once read). */
export type JsonObject = { [key: string]: Json };

/** One of the published OpenAPI documents vendored in test/fixtures/openapi (see its README). */
export type OpenApiDocument = 'openai.json' | 'anthropic.json' | 'openresponses.json';

/** Validates one value; returns readable violations (empty when valid; a fresh array each call). */
export type SchemaValidator = (body: unknown) => string[];

/** At most this many violations are spelled out; an `anyOf` miss alone can yield dozens. */
const MAX_VIOLATIONS = 12;

let ajv: Ajv2020 | undefined;
const documents = new Map<OpenApiDocument, JsonObject>();
const validators = new Map<string, SchemaValidator>();

/** Keywords whose value maps names to schemas: rewrite each schema, never the map itself. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is data, not schema: left exactly as written. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'example', 'examples']);

/**
 * The OpenAPI-isms of the two documents that ajv refuses or misreads, rewritten as the JSON
 * Schema they mean (this is the only general patch; nothing else is loosened):
 * - `nullable: true` (OpenAPI 3.0 style, still used by openai.json): `null` joins a string or
 *   array `type` (and an `enum`), else the schema becomes `anyOf [schema, {type: 'null'}]`
 *   (ajv refuses `nullable` without `type`); `nullable: false` is dropped.
 * - `type: null` (anthropic.json `Model`, whose `anyOf` says it all) is not JSON Schema: dropped.
 * - `discriminator`: ajv cannot run OpenAPI discriminators, and without one the alternatives
 *   overlap (an OpenAI Responses user message with a content list matches both
 *   EasyInputMessage and InputMessage), so a discriminated `oneOf` is read as `anyOf`; every
 *   alternative still pins its own `type`, so a body must still match one of them.
 */
function toJsonSchema(node: Json): Json {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (node === null || typeof node !== 'object') return node;
  const discriminated = node.discriminator !== undefined && Array.isArray(node.oneOf);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'discriminator' || key === 'nullable' || (key === 'type' && value === null)) continue;
    const name = discriminated && key === 'oneOf' ? 'anyOf' : key;
    if (DATA_KEYWORDS.has(key)) out[name] = value;
    else if (SCHEMA_MAPS.has(key) && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out[name] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toJsonSchema(v)]));
    } else out[name] = toJsonSchema(value);
  }
  if (node.nullable !== true) return out;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type)) out.type = out.type.includes('null') ? out.type : [...out.type, 'null'];
  else return { anyOf: [out, { type: 'null' }] };
  return out;
}

/** A closed object schema with the given required `type` constant and other properties. */
function tagged(type: string, properties: JsonObject, required: string[]): JsonObject {
  return { type: 'object', additionalProperties: false, required: ['type', ...required], properties: { type: { const: type }, ...properties } };
}

/**
 * anthropic.json is Anthropic's hosted document of 2024-11-08. The live Messages API accepts
 * fields added since (https://docs.anthropic.com/en/api/messages), which the gateway sends; each
 * is allowed here explicitly and nothing else is loosened:
 * - request `thinking`: `{type:'enabled', budget_tokens >= 1024}` | `{type:'adaptive'}` |
 *   `{type:'disabled'}` (extended / adaptive thinking);
 * - request `output_config`: `{effort, format:{type:'json_schema', schema}}` (effort, structured
 *   outputs);
 * - request `service_tier`: `auto` | `standard_only` (Priority Tier);
 * - message content blocks `thinking` `{thinking, signature}` and `redacted_thinking` `{data}`
 *   (echoed back in multi-turn tool use with thinking);
 * - image source `{type:'url', url}` and `{type:'file', file_id}` (the 2024 document has only base64);
 * - `tool_choice` `{type:'none'}`;
 * - tool `strict` (strict tool use);
 * - message content block `document` (https://docs.anthropic.com/en/docs/build-with-claude/pdf-support):
 *   a PDF as `{type:'base64', media_type:'application/pdf', data}`, `{type:'url', url}` or
 *   `{type:'file', file_id}`, or plain text `{type:'text', media_type:'text/plain', data}`, with
 *   an optional `title` (the 2024 document has it only among its Beta schemas).
 */
function allowNewerAnthropicFields(doc: JsonObject): void {
  const schemas = schemasOf(doc);
  const props = schemas.CreateMessageParams!.properties as JsonObject;
  props.thinking = {
    anyOf: [
      tagged('enabled', { budget_tokens: { type: 'integer', minimum: 1024 } }, ['budget_tokens']),
      { type: 'object', additionalProperties: false, required: ['type'], properties: { type: { enum: ['adaptive', 'disabled'] } } },
    ],
  };
  props.output_config = {
    type: 'object',
    additionalProperties: false,
    properties: {
      effort: { enum: ['low', 'medium', 'high', 'xhigh', 'max'] },
      format: tagged('json_schema', { schema: { type: 'object' } }, ['schema']),
    },
  };
  props.service_tier = { enum: ['auto', 'standard_only'] };
  schemas.RequestThinkingBlock = tagged('thinking', { thinking: { type: 'string' }, signature: { type: 'string', minLength: 1 } }, ['thinking', 'signature']);
  schemas.RequestRedactedThinkingBlock = tagged('redacted_thinking', { data: { type: 'string', minLength: 1 } }, ['data']);
  schemas.RequestDocumentBlock = tagged('document', {
    source: {
      anyOf: [
        tagged('base64', { media_type: { const: 'application/pdf' }, data: { type: 'string', minLength: 1 } }, ['media_type', 'data']),
        tagged('text', { media_type: { const: 'text/plain' }, data: { type: 'string' } }, ['media_type', 'data']),
        tagged('url', { url: { type: 'string', format: 'uri' } }, ['url']),
        tagged('file', { file_id: { type: 'string' } }, ['file_id']),
      ],
    },
    title: { type: 'string' },
  }, ['source']);
  // The discriminated oneOfs below are anyOfs by now (see toJsonSchema).
  const content = ((schemas.InputMessage!.properties as JsonObject).content as { anyOf: JsonObject[] }).anyOf[1]!.items as { anyOf: Json[] };
  content.anyOf.push({ $ref: '#/components/schemas/RequestThinkingBlock' }, { $ref: '#/components/schemas/RequestRedactedThinkingBlock' }, { $ref: '#/components/schemas/RequestDocumentBlock' });
  const imageSource = (schemas.RequestImageBlock!.properties as JsonObject).source as { anyOf: Json[] };
  imageSource.anyOf.push(tagged('url', { url: { type: 'string', format: 'uri' } }, ['url']), tagged('file', { file_id: { type: 'string' } }, ['file_id']));
  schemas.ToolChoiceNone = tagged('none', {}, []);
  (schemas.ToolChoice as { anyOf: Json[] }).anyOf.push({ $ref: '#/components/schemas/ToolChoiceNone' });
  (schemas.Tool!.properties as JsonObject).strict = { type: 'boolean' };
}

/**
 * openai.json types `Response.usage` as an object, but the live API sends `usage: null` in the
 * `response.created` / `response.in_progress` snapshots (before anything was counted; see the
 * recorded test/fixtures/text-upstreams/openai-responses/*.sse), as the Open Responses schema
 * (`usage` required, nullable) also says. That null, and nothing else, is allowed here.
 */
function allowLiveOpenAiShapes(doc: JsonObject): void {
  const schemas = schemasOf(doc);
  const own = (schemas.Response!.allOf as JsonObject[])[2]!.properties as JsonObject;
  own.usage = { anyOf: [{ $ref: '#/components/schemas/ResponseUsage' }, { type: 'null' }] };
}

function schemasOf(doc: JsonObject): { [name: string]: JsonObject } {
  return (doc.components as { schemas: { [name: string]: JsonObject } }).schemas;
}

function loadAjv(): Ajv2020 {
  if (ajv) return ajv;
  ajv = new Ajv2020({ strict: false, allErrors: true, logger: false });
  // ajv-formats is CommonJS; under NodeNext its default import is the module object.
  addFormats.default(ajv);
  // openai.json's own `unixtime` format (timestamps in seconds): a non-negative integer.
  ajv.addFormat('unixtime', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= 0 });
  return ajv;
}

/** The rewritten document (see `toJsonSchema`), read and added to ajv on first use. Do not mutate. */
export function openApiDocument(name: OpenApiDocument): JsonObject {
  const known = documents.get(name);
  if (known) return known;
  const raw = JSON.parse(readFileSync(path.resolve(process.cwd(), 'test/fixtures/openapi', name), 'utf8')) as Json;
  const doc = toJsonSchema(raw) as JsonObject;
  if (name === 'anthropic.json') allowNewerAnthropicFields(doc);
  if (name === 'openai.json') allowLiveOpenAiShapes(doc);
  loadAjv().addSchema(doc, name);
  documents.set(name, doc);
  return doc;
}

/** `/`-prefixed readable lines for ajv's errors, at most MAX_VIOLATIONS of them. */
function readableErrors(errors: ErrorObject[]): string[] {
  const lines = errors.slice(0, MAX_VIOLATIONS).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
  if (errors.length > MAX_VIOLATIONS) lines.push(`(${errors.length - MAX_VIOLATIONS} more)`);
  return lines;
}

/** The validator of the schema at a JSON pointer of a document, e.g. `/components/schemas/Tool`. */
export function openApiValidator(document: OpenApiDocument, pointer: string): SchemaValidator {
  const ref = `${document}#${pointer.split('/').map((s) => encodeURIComponent(s)).join('/')}`;
  const cached = validators.get(ref);
  if (cached) return cached;
  openApiDocument(document);
  let validate: ValidateFunction | undefined;
  try {
    validate = loadAjv().getSchema(ref);
  } catch (e) {
    throw new Error(`${document}#${pointer} does not compile: ${(e as Error).message}`);
  }
  if (!validate) throw new Error(`${document} has no schema at ${pointer}`);
  const check = validate;
  const validator: SchemaValidator = (body) => (check(body) ? [] : readableErrors(check.errors ?? []));
  validators.set(ref, validator);
  return validator;
}

/** The validator of one of OpenAI's component schemas, e.g. `CreateChatCompletionRequest`. */
export function openAiValidator(schemaName: string): SchemaValidator {
  return openApiValidator('openai.json', `/components/schemas/${schemaName.replace(/~/g, '~0').replace(/\//g, '~1')}`);
}

/** The validator of one of Anthropic's component schemas, e.g. `CreateMessageParams`. */
export function anthropicValidator(schemaName: string): SchemaValidator {
  return openApiValidator('anthropic.json', `/components/schemas/${schemaName.replace(/~/g, '~0').replace(/\//g, '~1')}`);
}

/**
 * The validator of one OpenAI Responses stream event, chosen by its `type` among the members of
 * `ResponseStreamEvent` (validating against the whole union reports every member's mismatch).
 */
export function openAiStreamEventValidator(eventType: string): SchemaValidator {
  const schemas = schemasOf(openApiDocument('openai.json'));
  const members = (schemas.ResponseStreamEvent?.anyOf ?? []) as Array<{ $ref?: string }>;
  for (const member of members) {
    const name = member.$ref?.split('/').pop();
    const type = name === undefined ? undefined : ((schemas[name]?.properties as JsonObject | undefined)?.type as { enum?: Json[]; const?: Json } | undefined);
    if (name !== undefined && (type?.const === eventType || type?.enum?.includes(eventType))) return openAiValidator(name);
  }
  throw new Error(`ResponseStreamEvent has no member of type ${eventType}`);
}

/**
 * The request body of the OpenAI operation `method specPath` as `contentType` (e.g. `POST`,
 * `/images/edits`, `multipart/form-data`): its schema (a top-level `$ref` resolved) and its
 * validator; undefined when the document has no such operation or content type.
 */
export function openAiRequestBody(method: string, specPath: string, contentType: string): { schema: JsonObject; validate: SchemaValidator } | undefined {
  const doc = openApiDocument('openai.json');
  const operation = (doc.paths as { [path: string]: { [method: string]: JsonObject } })[specPath]?.[method.toLowerCase()];
  const content = (operation?.requestBody as { content?: { [type: string]: { schema?: JsonObject } } } | undefined)?.content?.[contentType];
  if (!content?.schema) return undefined;
  const escape = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');
  const pointer = `/paths/${escape(specPath)}/${method.toLowerCase()}/requestBody/content/${escape(contentType)}/schema`;
  const ref = content.schema.$ref;
  const schema = typeof ref === 'string' ? resolvePointer(doc, ref.replace(/^#/, '')) : content.schema;
  return { schema, validate: openApiValidator('openai.json', pointer) };
}

function resolvePointer(doc: JsonObject, pointer: string): JsonObject {
  const keys = pointer.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  return keys.reduce<Json>((node, key) => (node as JsonObject)[key] ?? null, doc) as JsonObject;
}

/** The validator of one of the Open Responses component schemas, e.g. `ResponseResource`. */
export function openResponsesValidator(schemaName: string): SchemaValidator {
  return openApiValidator('openresponses.json', `/components/schemas/${schemaName}`);
}

/**
 * The validator of one Open Responses streaming event, chosen by its `type` among the members
 * of the `text/event-stream` schema of `POST /responses` (the events the specification lists).
 * Throws for a type the specification does not have, so an unknown event fails the test.
 */
export function openResponsesStreamEventValidator(eventType: string): SchemaValidator {
  const doc = openApiDocument('openresponses.json');
  const schemas = schemasOf(doc);
  const post = (doc.paths as { [path: string]: { post: JsonObject } })['/responses']!.post;
  const stream = resolvePointer(post, '/responses/200/content/text~1event-stream/schema') as { anyOf?: Array<{ $ref?: string }> };
  for (const member of stream.anyOf ?? []) {
    const name = member.$ref?.split('/').pop();
    const type = name === undefined ? undefined : ((schemas[name]?.properties as JsonObject | undefined)?.type as { enum?: Json[] } | undefined);
    if (name !== undefined && type?.enum?.includes(eventType)) return openResponsesValidator(name);
  }
  throw new Error(`the Open Responses stream has no event of type ${eventType}`);
}
