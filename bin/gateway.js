#!/usr/bin/env node
// The `gateway` command. Runs the compiled CLI; never compiles (dist/ comes from `npm run build`
// in development and the Docker build stage, or ships in the package).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  console.error('gateway: dist/ is missing. Build it once with `npm run build` (needs the dev dependencies: `npm ci`).');
  process.exit(1);
}
await import(main.href);
