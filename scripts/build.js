#!/usr/bin/env node
// `npm run build`, and the `prepare` hook of a development install. Three steps:
// 1. tsc: src/, test/ and bench/ to dist/, type-checked.
// 2. Bundle the gateway's own modules for the CLI (esbuild-wasm: no native binary; packages stay
//    external and load from node_modules as before). Unbundled, every start had node resolve,
//    read and link ~290 ESM files of dist/src: ~80 ms of the ~320 ms to ready of the shipped
//    config, and ~5 MB of RSS. The CLI entry dist/src/cli/main.js is replaced by the bundle;
//    what a command imports on demand (migrate, usage, the ledger, S3, tracing...) goes to
//    chunks beside it, loaded only when used. Tests that import dist/src modules directly still
//    get tsc's files. precompile-schemas is bundled too (dist/src/cli/precompile.js), so the
//    startup cache it fills is keyed by the same code `serve` runs (the keys hash the module
//    that made an entry).
// 3. Precompile the config meta-schemas' validators and fill the startup cache for the shipped
//    config (src/config/precompile-schemas.ts).
import { spawnSync } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cliDir = join(root, 'dist', 'src', 'cli');

/** Runs a node script in the project root; returns its exit status. */
function run(script, args = []) {
  return spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' }).status ?? 1;
}

async function bundle() {
  const { build } = await import(createRequire(join(root, 'package.json')).resolve('esbuild-wasm'));
  for (const f of readdirSync(cliDir)) if (f.startsWith('chunk-')) rmSync(join(cliDir, f));
  await build({
    entryPoints: { main: join(cliDir, 'main.js'), precompile: join(root, 'dist', 'src', 'config', 'precompile-schemas.js') },
    outdir: cliDir,
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

/** Builds dist/; returns an exit status. */
export async function buildAll() {
  const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  const status = run(tsc, ['-p', 'tsconfig.json']);
  if (status !== 0) return status;
  await bundle();
  return run(join(cliDir, 'precompile.js'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await buildAll();
