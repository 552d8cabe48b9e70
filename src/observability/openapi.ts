import { basename } from 'node:path';
import type { CompiledRoute } from '../compile/runtime.js';
import type { RouteSpec } from '../config/types.js';

/** An OpenAPI 3.1 document as plain JSON. */
export type OpenApiDocument = Record<string, unknown>;

/** What the generator needs besides the routes. */
export interface OpenApiOptions {
  title: string;
  version: string;
  /** Routes callable without any key in this configuration (e.g. /metrics when public). */
  isAnonymous?(route: RouteSpec): boolean;
}

type Json = Record<string, unknown>;

/**
 * Generates the OpenAPI 3.1 document of the gateway from the route files: the same request
 * schemas the validators compile (one source), each route's auth scheme and error envelope.
 * A route schema's `$defs` move to `components.schemas` (prefixed by the route) because a
 * `#/$defs/...` reference inside the document would resolve against the document root.
 */
export function buildOpenApi(routes: readonly CompiledRoute[], options: OpenApiOptions): OpenApiDocument {
  const paths: Record<string, Json> = {};
  const schemas: Json = { ...ERROR_SCHEMAS };
  const stems = new Set<string>();
  for (const { spec } of routes) {
    const fileStem = basename(spec.file).replace(/\.ya?ml$/, '').replace(/[^A-Za-z0-9_.-]/g, '_');
    // A file that serves several methods (pass-through routes) gives each its own operation id.
    const stem = stems.has(fileStem) ? `${fileStem}.${spec.method.toLowerCase()}` : fileStem;
    stems.add(fileStem);
    const { path, parameters } = toOpenApiPath(spec.path);
    const operation: Json = {
      operationId: stem,
      summary: spec.summary ?? `${spec.method} ${spec.path}`,
      tags: [tagOf(spec)],
      'x-gateway-operation': spec.operation,
      security: securityOf(spec, options),
    };
    if (parameters.length > 0) operation.parameters = parameters;
    const body = requestBodyOf(spec, stem, schemas);
    if (body) operation.requestBody = body;
    operation.responses = responsesOf(spec, options);
    (paths[path] ??= {})[spec.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: options.title,
      version: options.version,
      description: 'Generated from routes/*.yaml: the request schemas are the ones the gateway validates with.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: { schemas, securitySchemes: SECURITY_SCHEMES },
  };
}

const SECURITY_SCHEMES = {
  apiKeyBearer: { type: 'http', scheme: 'bearer', description: 'Gateway API key: `Authorization: Bearer <key>`.' },
  apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Gateway API key in the `x-api-key` header.' },
  adminKeyBearer: { type: 'http', scheme: 'bearer', description: 'Operator key from `auth.admin_keys` / `auth.admin_keys_env` (a client key gets 403).' },
  adminKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Operator key in the `x-api-key` header.' },
};

const ERROR_SCHEMAS = {
  Error: {
    type: 'object',
    description: 'Default error envelope (SPEC 2.5).',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['message', 'type'],
        properties: {
          message: { type: 'string' },
          type: { type: 'string', description: 'Stable error family, e.g. invalid_request_error.' },
          code: { type: ['string', 'null'], description: 'Stable machine-readable code, e.g. validation_failed.' },
          details: { type: 'object', description: 'Structured findings (validation errors, limits ...).' },
        },
      },
    },
  },
  MessagesError: {
    type: 'object',
    description: 'Error envelope of /v1/messages (SPEC 2.6).',
    required: ['type', 'error'],
    properties: {
      type: { const: 'error' },
      error: {
        type: 'object',
        required: ['type', 'message'],
        properties: { type: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
};

function tagOf(spec: RouteSpec): string {
  if (spec.auth === 'admin') return 'operations';
  if (spec.auth === 'none') return 'public';
  return spec.operation.split('.')[0]!;
}

function securityOf(spec: RouteSpec, options: OpenApiOptions): Json[] {
  if (spec.auth === 'none' || options.isAnonymous?.(spec)) return [];
  if (spec.auth === 'admin') return [{ adminKeyBearer: [] }, { adminKeyHeader: [] }];
  return [{ apiKeyBearer: [] }, { apiKeyHeader: [] }];
}

/** `/v1/models/:provider/:model` -> `/v1/models/{provider}/{model}` and its path parameters. */
function toOpenApiPath(path: string): { path: string; parameters: Json[] } {
  const parameters: Json[] = [];
  // `{*rest}` (a pass-through route's wildcard) is one parameter holding the rest of the path.
  const converted = path.replace(/:([A-Za-z_][A-Za-z0-9_]*)|\{\*([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, param: string | undefined, rest: string | undefined) => {
    const name = (param ?? rest)!;
    parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
    return `{${name}}`;
  });
  return { path: converted, parameters };
}

function requestBodyOf(spec: RouteSpec, stem: string, schemas: Json): Json | undefined {
  const types = spec.content_types ?? [];
  if (types.length === 0) return undefined;
  const content: Json = {};
  for (const type of types) {
    const source = type === 'multipart/form-data' ? spec.multipart_schema : spec.schema;
    content[type] = { schema: source ? hoistDefs(source, `${stem}.`, schemas) : {} };
  }
  return { required: true, content };
}

function responsesOf(spec: RouteSpec, options: OpenApiOptions): Json {
  const error = { $ref: `#/components/schemas/${spec.envelope === 'messages' ? 'MessagesError' : 'Error'}` };
  const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: error } } });
  const ok: Json = { description: spec.stream_field ? `Success; a server-sent event stream when \`${spec.stream_field}\` is true.` : 'Success.' };
  if (spec.stream_field) ok.content = { 'application/json': { schema: {} }, 'text/event-stream': { schema: { type: 'string' } } };
  const responses: Json = { 200: ok };
  if (spec.auth !== 'none' && !options.isAnonymous?.(spec)) responses[401] = errorResponse('No key or an unknown key.');
  if (spec.auth === 'admin') responses[403] = errorResponse('A client key on an operator endpoint.');
  if (spec.content_types?.length) responses[400] = errorResponse('Malformed or invalid request body; `error.details.errors` names each field and rule.');
  responses['4XX'] = errorResponse('Other client errors (404, 405, 413, 415, 429 ...).');
  responses['5XX'] = errorResponse('Gateway or upstream failure (500, 502, 503, 504).');
  return responses;
}

/**
 * A copy of `schema` with its `$defs` moved to `components.schemas` under `prefix` and its
 * local references rewritten to point there.
 */
function hoistDefs(schema: Json, prefix: string, schemas: Json): Json {
  const defs = schema.$defs as Record<string, unknown> | undefined;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (typeof value !== 'object' || value === null) return value;
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) out[k] = `#/components/schemas/${prefix}${v.slice('#/$defs/'.length)}`;
      else out[k] = rewrite(v);
    }
    return out;
  };
  if (defs) for (const [name, def] of Object.entries(defs)) schemas[`${prefix}${name}`] = rewrite(def);
  const { $defs: _, $schema: __, $id: ___, ...rest } = schema;
  return rewrite(rest) as Json;
}
