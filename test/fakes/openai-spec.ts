import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FakeRequest } from './fake-server.js';

/**
 * Validates requests against OpenAI's published OpenAPI document (../shared/openapi/openai.json,
 * ajv draft 2020-12, strict: false). Multipart bodies are checked as the object their parts
 * describe: text parts as strings (numbers and booleans converted back where the schema asks),
 * file parts as binary strings, `key[]` parts as arrays.
 */
let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();
let document: { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>> } | undefined;

function load(): Ajv2020 {
  if (ajv) return ajv;
  document = JSON.parse(readFileSync(resolve(process.cwd(), '../shared/openapi/openai.json'), 'utf8')) as typeof document;
  rewriteNullable(document);
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema(document as object, 'openai.json');
  return ajv;
}

function validatorFor(path: string, method: string, contentType: string): ValidateFunction | undefined {
  const key = `${method} ${path} ${contentType}`;
  if (validators.has(key)) return validators.get(key);
  const a = load();
  const schema = document!.paths[path]?.[method.toLowerCase()]?.requestBody?.content[contentType]?.schema as { $ref?: string } | undefined;
  const v = schema?.$ref ? a.compile({ $ref: `openai.json${schema.$ref}` }) : schema ? a.compile(schema as object) : undefined;
  if (v) validators.set(key, v);
  return v;
}

/**
 * Findings of one request against the OpenAPI operation `method specPath` (e.g. `POST
 * /embeddings`); [] when valid. An operation or content type the document lacks is a finding.
 */
export function validateOpenAiRequest(req: FakeRequest, specPath: string): string[] {
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim();
  const validate = validatorFor(specPath, req.method, type);
  if (!validate) return [`no OpenAPI schema for ${req.method} ${specPath} as ${type}`];
  const body = type === 'multipart/form-data' ? formToObject(req, validate) : req.json;
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** The object a multipart body stands for. */
function formToObject(req: FakeRequest, validate: ValidateFunction): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const props = ((validate.schema as { $ref?: string }).$ref ? resolveSchema((validate.schema as { $ref: string }).$ref) : validate.schema) as { properties?: Record<string, { type?: string | string[]; anyOf?: Array<{ type?: string }> }> };
  const typeOf = (name: string): string | undefined => {
    const p = props.properties?.[name];
    const t = p?.type ?? p?.anyOf?.find((x) => x.type && x.type !== 'null')?.type;
    return Array.isArray(t) ? t.find((x) => x !== 'null') : t;
  };
  const put = (rawName: string, value: unknown): void => {
    const array = rawName.endsWith('[]');
    const name = array ? rawName.slice(0, -2) : rawName;
    if (array) out[name] = [...((out[name] as unknown[] | undefined) ?? []), value];
    else out[name] = value;
  };
  for (const [name, values] of Object.entries(req.form?.fields ?? {})) {
    for (const v of values) {
      const t = typeOf(name.replace(/\[\]$/, ''));
      put(name, t === 'integer' || t === 'number' ? Number(v) : t === 'boolean' ? v === 'true' : v);
    }
  }
  for (const f of req.form?.files ?? []) put(f.field, `<binary ${f.bytes.length} bytes>`);
  return out;
}

function resolveSchema(ref: string): unknown {
  const pointer = ref.replace(/^openai\.json#\//, '').split('/');
  return pointer.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], document);
}

/**
 * OpenAPI 3.0's `nullable` (still used in places by this 3.1 document) as JSON Schema: ajv
 * refuses `nullable` without `type`, so `nullable: true` becomes a `null` type (or a
 * `{type: 'null'}` alternative) and the keyword is removed.
 */
function rewriteNullable(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(rewriteNullable);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const o = node as Record<string, unknown>;
  if ('nullable' in o && typeof o.nullable === 'boolean') {
    if (o.nullable) {
      if (typeof o.type === 'string') o.type = [o.type, 'null'];
      else if (Array.isArray(o.type) && !o.type.includes('null')) o.type = [...(o.type as string[]), 'null'];
      else if (Array.isArray(o.anyOf)) o.anyOf = [...(o.anyOf as unknown[]), { type: 'null' }];
      else if (Array.isArray(o.oneOf)) o.oneOf = [...(o.oneOf as unknown[]), { type: 'null' }];
      if (Array.isArray(o.enum) && !o.enum.includes(null)) o.enum = [...(o.enum as unknown[]), null];
    }
    delete o.nullable;
  }
  for (const v of Object.values(o)) rewriteNullable(v);
}
