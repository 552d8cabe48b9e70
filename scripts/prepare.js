#!/usr/bin/env node
// `npm install` / `npm ci` hook (package.json "prepare"). Two jobs, both cheap when done:
// 1. Build dist/ with TypeScript when TypeScript is installed (a development install). A
//    production install (`npm ci --omit=dev`) has no TypeScript: it runs the dist/ built in the
//    Docker build stage or shipped in the package, and never compiles at start.
// 2. Link node_modules/.bin/gateway to bin/gateway.js (npm links the bins of dependencies, never
//    the project's own), so `npm exec`/scripts/older npx find the local CLI.
// `npx gateway` inside the project (npm 11) links the project into npx's cache and runs this hook
// there (npm_command=exec): that must not compile (it took seconds on every fresh cache; issue
// 10.16): the CLI runs from the project's own dist/.
import { existsSync, lstatSync, mkdirSync, symlinkSync, unlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));

function linkBin() {
  const binDir = join(root, 'node_modules', '.bin');
  const link = join(binDir, 'gateway');
  const target = relative(binDir, join(root, 'bin', 'gateway.js'));
  mkdirSync(binDir, { recursive: true });
  try {
    if (lstatSync(link)) unlinkSync(link);
  } catch {
    // No link yet.
  }
  symlinkSync(target, link);
}

async function build() {
  try {
    createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    const built = existsSync(join(root, 'dist', 'src', 'cli', 'main.js'));
    console.log(`prepare: TypeScript is not installed (production install); ${built ? 'using the dist/ already built' : 'no dist/ yet: build it with `npm ci && npm run build` (see Dockerfile)'}.`);
    return 0;
  }
  // The same steps as `npm run build` (tsc, the CLI bundle, precompiled schemas).
  const { buildAll } = await import('./build.js');
  return buildAll();
}

if (process.env.npm_command === 'exec') process.exit(0);
if (existsSync(join(root, 'node_modules'))) {
  try {
    linkBin();
  } catch (e) {
    // A read-only or Windows checkout still works with `node bin/gateway.js`.
    console.log(`prepare: could not link node_modules/.bin/gateway (${e.code ?? e.message}).`);
  }
}
process.exitCode = await build();
