import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { cacheKey, fileHash, hasCached, readCached, writeCached } from './startup-cache.js';

/** How a request schema reads its body: JSON as it is, or multipart text fields coerced. */
export type RequestEncoding = 'json' | 'form';

const requireCjs = createRequire(import.meta.url);
const engines: Partial<Record<RequestEncoding, Ajv2020>> = {};
const compiled: Record<RequestEncoding, WeakMap<object, ValidateFunction>> = { json: new WeakMap(), form: new WeakMap() };

/**
 * Compiles a route's request schema (JSON Schema 2020-12 with formats) once: lint's check that
 * it compiles and the runtime's validator are the same function, so a schema is compiled once
 * per load, not twice. `form` coerces (in place) the schema's numbers and booleans, because
 * multipart text fields are strings on the wire and handlers should see the types JSON gives.
 * Throws ajv's error for a schema that does not compile.
 *
 * The validator is ajv's standalone code, kept in the startup cache (startup-cache.ts) by the
 * schema's text: a start with every schema cached loads neither ajv nor its code generator
 * (cold, compiling the shipped routes' schemas took ~180 ms). A cached entry exists only for
 * a schema that compiled, so a hit compiles too.
 */
export function compileRequestSchema(schema: Record<string, unknown>, encoding: RequestEncoding = 'json'): ValidateFunction {
  return compiled[encoding].get(schema) ?? keep(schema, encoding, cachedValidator(schema, encoding) ?? engineFor(encoding).compile(schema));
}

/** A request validator with ajv's contract: true, or false with `errors` set. */
export interface RequestValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
  /** Does now what the first call would (a deferred validator: compileOnFirstUse). */
  prepare?: () => void;
}

/**
 * compileRequestSchema, deferred to the validator's first call when the schema's standalone
 * code is in the startup cache: a start then evaluates no validator code it does not use yet
 * (the shipped routes' 46 validators were ~10 ms of the time to ready; one route's first
 * request pays 0.1–2 ms). A schema not cached yet is compiled now, never on a request.
 */
export function compileOnFirstUse(schema: Record<string, unknown>, encoding: RequestEncoding = 'json'): RequestValidator {
  const ready = compiled[encoding].get(schema);
  if (ready) return ready;
  const key = standaloneKey(schema, encoding);
  if (key === undefined || !hasCached(key, 'cjs')) return compileRequestSchema(schema, encoding);
  let loaded: ValidateFunction | undefined;
  // An entry removed since the start (pruned by another process) is compiled here instead.
  const load = (): ValidateFunction => (loaded ??= compiled[encoding].get(schema) ?? keep(schema, encoding, fromCode(readCached(key, 'cjs')) ?? compileRequestSchema(schema, encoding)));
  const validate: RequestValidator = (data) => {
    const v = load();
    const valid = v(data) as boolean;
    validate.errors = v.errors;
    return valid;
  };
  validate.prepare = () => void load();
  return validate;
}

/**
 * Prepares deferred validators one per event-loop turn (unref'd immediates): `serve` runs it
 * once ready, so traffic arriving later finds them evaluated, and no turn does more than one
 * (0.1–2 ms each) while requests may already be coming in.
 */
export function prepareInIdleTurns(validators: ReadonlyArray<RequestValidator | undefined>): void {
  const pending = validators.filter((v): v is RequestValidator & { prepare: () => void } => v?.prepare !== undefined);
  const next = (): void => {
    pending.shift()?.prepare();
    if (pending.length > 0) setImmediate(next).unref();
  };
  if (pending.length > 0) setImmediate(next).unref();
}

function fromCode(code: string | undefined): ValidateFunction | undefined {
  return code === undefined ? undefined : loadStandalone(code);
}

function keep(schema: Record<string, unknown>, encoding: RequestEncoding, v: ValidateFunction): ValidateFunction {
  compiled[encoding].set(schema, v);
  return v;
}

/**
 * The startup-cache key of a schema's standalone code. Undefined for a schema with ids (`$id`,
 * anchors): whether it compiles depends on the schemas compiled before it in the same engine
 * (a repeated id), which a cache by one schema's text cannot know.
 */
function standaloneKey(schema: Record<string, unknown>, encoding: RequestEncoding): string | undefined {
  const text = JSON.stringify(schema);
  if (/"\$(id|anchor|dynamicAnchor)"/.test(text)) return undefined;
  return cacheKey('ajv-standalone', encoding, codeHash(), text);
}

/** The validator from the cache, or compiled and then cached (undefined: see standaloneKey). */
function cachedValidator(schema: Record<string, unknown>, encoding: RequestEncoding): ValidateFunction | undefined {
  const key = standaloneKey(schema, encoding);
  if (key === undefined) return undefined;
  let code = readCached(key, 'cjs');
  if (code === undefined) {
    const ajv = engineFor(encoding);
    // Compiled by the engine itself (it throws as before), then written as standalone code.
    const validate = ajv.compile(schema);
    code = (requireCjs('ajv/dist/standalone/index.js') as { default: (ajv: Ajv2020, v: ValidateFunction) => string }).default(ajv, validate);
    writeCached(key, 'cjs', code);
  }
  return loadStandalone(code);
}

/** Evaluates standalone validator code (CommonJS: it requires ajv's runtime helpers and formats). */
function loadStandalone(code: string): ValidateFunction {
  const module = { exports: {} as unknown };
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- what ajv.compile itself does
  new Function('module', 'exports', 'require', code)(module, module.exports, requireCjs);
  return module.exports as ValidateFunction;
}

/** What ties cached code to the code generator that made it: ajv, ajv-formats and this module. */
let generatorHash: string | undefined;
function codeHash(): string {
  generatorHash ??= cacheKey(
    fileHash(fileURLToPath(import.meta.url)),
    fileHash(requireCjs.resolve('ajv/package.json')),
    fileHash(requireCjs.resolve('ajv-formats/package.json')),
  );
  return generatorHash;
}

function engineFor(encoding: RequestEncoding): Ajv2020 {
  let ajv = engines[encoding];
  if (!ajv) {
    const { Ajv2020: Engine } = requireCjs('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    const addFormats = requireCjs('ajv-formats') as { default: (ajv: Ajv2020) => void };
    // code.source: the standalone generator needs each validator's source.
    ajv = new Engine({ allErrors: true, strict: false, coerceTypes: encoding === 'form', code: { source: true } });
    addFormats.default(ajv);
    engines[encoding] = ajv;
  }
  return ajv;
}
