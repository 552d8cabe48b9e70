/**
 * Build step (`npm run build`): writes the standalone validators of the config meta-schemas to
 * dist/schemas/, so `gateway serve` and `gateway lint` load them instead of compiling them; then
 * fills the startup cache (startup-cache.ts) for the shipped gateway.yaml and routes/, so its
 * first start needs neither the YAML parser nor ajv's code generator, and runs neither the
 * config checks nor the config hash again (remembered-checks.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../paths.js';
import { META_SCHEMAS, generateValidatorCode, precompiledPath } from '../config/meta-schema-compiler.js';

for (const name of META_SCHEMAS) {
  const file = precompiledPath(name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, generateValidatorCode(name));
}

// Imported only now: the meta-schema validators they load are the ones just written.
const { loadProject } = await import('../config/load-project.js');
const { compile } = await import('../compile/compile.js');
const { rememberedConfigHash } = await import('../fleet/config-hash.js');
const { runtime } = compile(loadProject(join(packageRoot, 'gateway.yaml'), {}));
if (runtime) rememberedConfigHash(runtime.config, runtime.routes.map((r) => r.spec));
