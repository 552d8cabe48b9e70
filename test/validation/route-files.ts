/**
 * Reads routes/*.yaml and compiles their request schemas exactly as the engine does
 * (Ajv2020, allErrors, strict false, no coercion, ajv-formats), for the schema-level tests.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

/** One route file as written. */
export interface RouteFile {
  /** File name, e.g. `chat-completions.yaml`. */
  name: string;
  /** Raw text of the file. */
  text: string;
  /** Parsed YAML. */
  data: Record<string, unknown>;
}

/** Folder of the route files (tests run from the repository root). */
export const ROUTES_DIR = path.resolve(process.cwd(), 'routes');

/** Path of the route meta-schema. */
export const ROUTE_META_SCHEMA = path.resolve(process.cwd(), 'schemas/route.schema.json');

/** Reads every routes/*.yaml file, sorted by name. */
export function readRouteFiles(): RouteFile[] {
  return readdirSync(ROUTES_DIR)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((name) => {
      const text = readFileSync(path.join(ROUTES_DIR, name), 'utf8');
      return { name, text, data: parse(text) as Record<string, unknown> };
    });
}

/** A new ajv configured like the engine's request validators. */
export function createEngineAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: false });
  // ajv-formats is CommonJS; under NodeNext its default import is the module object.
  addFormats.default(ajv);
  return ajv;
}

/** Compiles the `schema` of every POST route, keyed by path. */
export function compileRouteSchemas(files: readonly RouteFile[]): Map<string, ValidateFunction> {
  const ajv = createEngineAjv();
  const out = new Map<string, ValidateFunction>();
  for (const f of files) {
    const schema = f.data.schema;
    // The SPEC model routes (the admin API has its own tests in test/admin/).
    if (f.data.method === 'POST' && String(f.data.path).startsWith('/v1/') && schema && typeof schema === 'object') out.set(String(f.data.path), ajv.compile(schema));
  }
  return out;
}

/** True when one of the errors points at `field` (by instance path or by a named property). */
export function errorsName(errors: readonly ErrorObject[], field: string): boolean {
  return errors.some((e) => {
    const p = e.params as { missingProperty?: string; additionalProperty?: string };
    return e.instancePath.split('/').includes(field) || p.missingProperty === field || p.additionalProperty === field;
  });
}
