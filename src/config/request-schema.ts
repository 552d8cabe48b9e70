import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** How a request schema reads its body: JSON as it is, or multipart text fields coerced. */
export type RequestEncoding = 'json' | 'form';

const engines: Partial<Record<RequestEncoding, Ajv2020>> = {};
const compiled: Record<RequestEncoding, WeakMap<object, ValidateFunction>> = { json: new WeakMap(), form: new WeakMap() };

/**
 * Compiles a route's request schema (JSON Schema 2020-12 with formats) once: lint's check that
 * it compiles and the runtime's validator are the same function, so a schema is compiled once
 * per load, not twice. `form` coerces (in place) the schema's numbers and booleans, because
 * multipart text fields are strings on the wire and handlers should see the types JSON gives.
 * Throws ajv's error for a schema that does not compile.
 */
export function compileRequestSchema(schema: Record<string, unknown>, encoding: RequestEncoding = 'json'): ValidateFunction {
  let v = compiled[encoding].get(schema);
  if (!v) {
    v = engineFor(encoding).compile(schema);
    compiled[encoding].set(schema, v);
  }
  return v;
}

function engineFor(encoding: RequestEncoding): Ajv2020 {
  let ajv = engines[encoding];
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: false, coerceTypes: encoding === 'form' });
    addFormats.default(ajv);
    engines[encoding] = ajv;
  }
  return ajv;
}
