/**
 * Build step (`npm run build`): writes the standalone validators of the config meta-schemas to
 * dist/schemas/, so `gateway serve` and `gateway lint` load them instead of compiling them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { META_SCHEMAS, generateValidatorCode, precompiledPath } from './meta-schema-compiler.js';

for (const name of META_SCHEMAS) {
  const file = precompiledPath(name);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, generateValidatorCode(name));
}
