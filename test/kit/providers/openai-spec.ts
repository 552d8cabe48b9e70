import { openAiRequestBody, type JsonObject } from '../../helpers/openapi.js';
import type { HandlerRequest } from '../handler.js';

/**
 * Validates requests against the OpenAPI operations of OpenAI's published document (loaded and
 * read as JSON Schema by test/helpers/openapi.ts). Multipart bodies are checked as the object
 * their parts describe: text parts as strings (numbers and booleans converted back where the
 * schema asks), file parts as binary strings, `key[]` parts as arrays.
 */

/**
 * Findings of one request against the OpenAPI operation `method specPath` (e.g. `POST
 * /embeddings`); [] when valid. An operation or content type the document lacks is a finding.
 */
export function validateOpenAiRequest(req: HandlerRequest, specPath: string): string[] {
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim();
  const operation = openAiRequestBody(req.method, specPath, type);
  if (!operation) return [`no OpenAPI schema for ${req.method} ${specPath} as ${type}`];
  const body = type === 'multipart/form-data' ? formToObject(req, operation.schema) : req.json;
  return operation.validate(body);
}

type PropertySchema = { type?: string | string[]; anyOf?: Array<{ type?: string | string[] }> };

/** The object a multipart body stands for. */
function formToObject(req: HandlerRequest, schema: JsonObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = (schema.properties ?? {}) as Record<string, PropertySchema>;
  const typeOf = (name: string): string | undefined => {
    const p = properties[name];
    const nonNull = (t: string | string[] | undefined): string | undefined => (Array.isArray(t) ? t.find((x) => x !== 'null') : t === 'null' ? undefined : t);
    return nonNull(p?.type) ?? p?.anyOf?.map((x) => nonNull(x.type)).find((t) => t !== undefined);
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
