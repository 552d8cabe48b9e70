#!/usr/bin/env node
// Build step (after tsc): compiles the published meta-schemas (schemas/gateway.schema.json,
// schemas/route.schema.json) into standalone ajv validators under dist/src/config/meta/, so
// `gateway lint` and `gateway serve` do not compile them on every start (about half of lint's
// time). Each file records the sha256 of the schema it was made from; src/config/meta-schema.ts
// uses it only while that still matches, and compiles the schema itself otherwise.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const out = join(root, 'dist', 'src', 'config', 'meta');
mkdirSync(out, { recursive: true });
for (const name of ['gateway', 'route']) {
  const text = readFileSync(join(root, 'schemas', `${name}.schema.json`), 'utf8');
  // The same options as meta-schema.ts, plus source code generation.
  const ajv = new Ajv2020({ allErrors: true, strict: false, verbose: true, code: { source: true, esm: false } });
  const validate = ajv.compile(JSON.parse(text));
  const sha256 = createHash('sha256').update(text).digest('hex');
  writeFileSync(join(out, `${name}.cjs`), `${standaloneCode.default(ajv, validate)}\nmodule.exports.sha256 = ${JSON.stringify(sha256)};\n`);
}
