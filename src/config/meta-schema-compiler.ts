import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Ajv2020 as Engine, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { packageRoot } from '../paths.js';

/** The published meta-schemas of the config files (schemas/<name>.schema.json). */
export type MetaSchemaName = 'gateway' | 'route' | 'mapping';

/** Every meta-schema, for the build step that precompiles them. */
export const META_SCHEMAS: readonly MetaSchemaName[] = ['gateway', 'route', 'mapping'];

const options = { allErrors: true, strict: false, verbose: true } as const;

const schemaTexts = new Map<MetaSchemaName, { text: string; hash: string }>();

/**
 * The text of a meta-schema and its sha256 (which ties a precompiled validator, and a
 * remembered check, to it): read once per load of the config (a start, a lint, a reload),
 * until forgetPrecompiledValidators.
 */
export function readMetaSchema(name: MetaSchemaName): { text: string; hash: string } {
  let read = schemaTexts.get(name);
  if (!read) {
    const text = readFileSync(join(packageRoot, 'schemas', `${name}.schema.json`), 'utf8');
    read = { text, hash: createHash('sha256').update(text).digest('hex') };
    schemaTexts.set(name, read);
  }
  return read;
}

/** Where the build writes the precompiled validator of a meta-schema. */
export function precompiledPath(name: MetaSchemaName): string {
  return join(packageRoot, 'dist', 'schemas', `${name}.validate.cjs`);
}

/** Standalone validator code of a meta-schema (CommonJS), stamped with the schema's hash. */
export function generateValidatorCode(name: MetaSchemaName): string {
  const { text, hash } = readMetaSchema(name);
  const ajv = newEngine({ ...options, code: { source: true } });
  const standaloneCode = requireCjs('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js');
  const code = standaloneCode.default(ajv, ajv.compile(JSON.parse(text) as object));
  return `${code}\nmodule.exports.schemaHash = ${JSON.stringify(hash)};\n`;
}

const requireCjs = createRequire(import.meta.url);

/** The ajv runtime modules that precompiled validators require. */
const RUNTIME_HELPERS = ['ajv/dist/runtime/ucs2length', 'ajv/dist/runtime/equal'] as const;

/**
 * ajv itself (75 modules), required only to compile: at build time, or for a meta-schema edited
 * since the build. `serve` and `lint` run the precompiled validators.
 */
function newEngine(opts: Options): Engine {
  const { Ajv2020 } = requireCjs('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  return new Ajv2020(opts);
}

/**
 * Drops the meta-schema texts read and the precompiled validators: these from the CommonJS
 * cache and from the `children` of the module that required them (createRequire's), the two
 * places that keep a module loaded.
 */
export function forgetPrecompiledValidators(): void {
  schemaTexts.clear();
  for (const name of META_SCHEMAS) {
    const file = precompiledPath(name);
    const mod = requireCjs.cache[file];
    if (!mod) continue;
    delete requireCjs.cache[file];
    const siblings = mod.parent?.children;
    const at = siblings?.indexOf(mod) ?? -1;
    if (at >= 0) siblings!.splice(at, 1);
  }
}

/**
 * A meta-schema's validator: the one precompiled at build time when it was made from the
 * schema as it is now (compiling the three meta-schemas at startup cost ~250 ms and a burst of
 * heap that V8 keeps), else compiled here (an edited schema in a checkout without a rebuild).
 */
export function loadMetaSchemaValidator(name: MetaSchemaName): ValidateFunction {
  const { text, hash } = readMetaSchema(name);
  try {
    // Required here first: a module keeps the one that first required it as its `parent` for
    // good, and a validator module kept that way kept its 225 KB of source after the release.
    for (const helper of RUNTIME_HELPERS) requireCjs(helper);
    const compiled = requireCjs(precompiledPath(name)) as ValidateFunction & { schemaHash?: string };
    if (compiled.schemaHash === hash) return compiled;
  } catch {
    // not built yet: compile below
  }
  return newEngine(options).compile(JSON.parse(text) as object);
}
