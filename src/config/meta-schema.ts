import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { Diagnostic } from './diagnostics.js';
import { suggest } from './did-you-mean.js';
import { forgetPrecompiledValidators, loadMetaSchemaValidator, type MetaSchemaName } from './meta-schema-compiler.js';
import { locate, type YamlSource } from './yaml-source.js';

const loaded = new Map<MetaSchemaName, ValidateFunction>();

/** A published meta-schema (schemas/<name>.schema.json), loaded once per process. */
export function metaSchema(name: MetaSchemaName): ValidateFunction {
  let v = loaded.get(name);
  if (!v) {
    v = loadMetaSchemaValidator(name);
    loaded.set(name, v);
  }
  return v;
}

/**
 * Lets the loaded validators go once a server has its config: the precompiled modules are
 * ~330 KB of source that V8 keeps beside their compiled code for as long as they are loaded.
 * A later load (SIGHUP reload) requires them again.
 */
export function releaseMetaSchemas(): void {
  loaded.clear();
  forgetPrecompiledValidators();
}

/**
 * Validates a source's data against a meta-schema, reporting each finding at its place. A
 * whole-scalar `${...}` typed as a number or boolean where the schema wants a string gets its
 * text back first (a digits-only secret stays the string it was, leading zeros included).
 */
export function checkAgainstMeta(source: YamlSource, validate: ValidateFunction, diagnostics: Diagnostic[]): boolean {
  let valid = validate(source.data);
  // A few rounds: restoring one value can reveal type errors below it (rare; bounded anyway).
  for (let round = 0; !valid && round < 3 && source.substituted.size > 0; round++) {
    if (!restoreSubstitutedStrings(source, validate.errors ?? [])) break;
    valid = validate(source.data);
  }
  if (valid) return true;
  for (const err of pruneErrors(validate.errors ?? [])) diagnostics.push(toDiagnostic(source, err));
  return false;
}

/** Puts back the text of each substituted scalar a `type` error says should be a string; true when any was. */
function restoreSubstitutedStrings(source: YamlSource, errs: readonly ErrorObject[]): boolean {
  let changed = false;
  for (const err of errs) {
    if (err.keyword !== 'type') continue;
    const raw = source.substituted.get(err.instancePath);
    const wanted = String((err.params as { type: string | string[] }).type).split(',');
    if (raw === undefined || !wanted.includes('string')) continue;
    setAtPointer(source.data, err.instancePath, raw);
    source.substituted.delete(err.instancePath);
    changed = true;
  }
  return changed;
}

function setAtPointer(data: unknown, pointer: string, value: unknown): void {
  const path = pointer.split('/').slice(1).map((seg) => seg.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node = data as Record<string, unknown>;
  for (const seg of path.slice(0, -1)) node = node[seg] as Record<string, unknown>;
  node[path[path.length - 1]!] = value;
}

/** Drops the noise ajv adds around a real finding (anyOf/if wrappers). */
function pruneErrors(errs: ErrorObject[]): ErrorObject[] {
  const meaningful = errs.filter((e) => !['anyOf', 'oneOf', 'if', '$ref'].includes(e.keyword));
  return meaningful.length > 0 ? meaningful : errs;
}

function toDiagnostic(source: YamlSource, err: ErrorObject): Diagnostic {
  const path = err.instancePath.split('/').slice(1).map(decodePointer);
  const where = (p: Array<string | number>, key = false) => ({ file: source.file, ...locate(source, p, key), severity: 'error' as const });
  const at = pathLabel(path);
  switch (err.keyword) {
    case 'additionalProperties': {
      const extra = String((err.params as { additionalProperty: string }).additionalProperty);
      const known = Object.keys(((err.parentSchema as { properties?: object }).properties) ?? {});
      const hint = suggest(extra, known);
      return { ...where([...path, extra], true), code: 'E_UNKNOWN_KEY', message: `unknown key '${extra}'${at ? ` in ${at}` : ''}${hint ? `; did you mean '${hint}'?` : `; allowed: ${known.join(', ')}`}` };
    }
    case 'required': {
      const missing = String((err.params as { missingProperty: string }).missingProperty);
      return { ...where(path), code: 'E_MISSING_KEY', message: `missing required key '${missing}'${at ? ` in ${at}` : ''}` };
    }
    case 'pattern':
      if (path.includes('pricing')) return { ...where(path), code: 'E_BAD_PRICE', message: `${at}: price must be a plain decimal string of USD per unit, e.g. "0.0000025"` };
      return { ...where(path), code: 'E_SCHEMA', message: `${at}: must match ${String((err.params as { pattern: string }).pattern)}` };
    case 'type':
      if (path.includes('pricing')) return { ...where(path), code: 'E_BAD_PRICE', message: `${at}: price must be a quoted decimal string, e.g. "0.0000025"` };
      return { ...where(path), code: 'E_SCHEMA', message: `${at || 'file'}: ${err.message ?? 'has the wrong type'}` };
    case 'enum': {
      const allowed = (err.params as { allowedValues: unknown[] }).allowedValues.map(String);
      return { ...where(path), code: 'E_SCHEMA', message: `${at}: must be one of ${allowed.join(', ')}` };
    }
    default:
      return { ...where(path), code: 'E_SCHEMA', message: `${at || 'file'}: ${err.message ?? 'is invalid'}` };
  }
}

function decodePointer(seg: string): string | number {
  const s = seg.replace(/~1/g, '/').replace(/~0/g, '~');
  return /^\d+$/.test(s) ? Number(s) : s;
}

/** `models[3].pricing` style label of a data path. */
export function pathLabel(path: ReadonlyArray<string | number>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}
