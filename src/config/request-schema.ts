import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

let ajv: Ajv2020 | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Compiles a route's request schema (JSON Schema 2020-12 with formats) once: lint's check that
 * it compiles and the runtime's validator are the same function, so a schema is compiled once
 * per load, not twice. Throws ajv's error for a schema that does not compile.
 */
export function compileRequestSchema(schema: Record<string, unknown>): ValidateFunction {
  let v = compiled.get(schema);
  if (!v) {
    if (!ajv) {
      ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: false });
      addFormats.default(ajv);
    }
    v = ajv.compile(schema);
    compiled.set(schema, v);
  }
  return v;
}
