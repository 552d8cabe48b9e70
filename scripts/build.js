#!/usr/bin/env node
// `npm run build`, and the `prepare` hook of a development install. Three steps:
// 1. tsc: src/, test/ and bench/ to dist/, type-checked.
// 2. Bundle the gateway's own modules for the CLI (esbuild-wasm: no native binary). Unbundled,
//    every start had node resolve, read and link ~290 ESM files of dist/src: ~80 ms of the
//    ~320 ms to ready of the shipped config, and ~5 MB of RSS. The CommonJS packages every
//    `serve` loads through many small files (koa and its ~20 dependencies, @koa/router, pino)
//    are bundled too (INLINED below: time to ready pinned to one core, median of 8, 334 -> 264 ms;
//    on two cores 243 -> 223 ms), and so are the store and ledger drivers, into the chunks that
//    load them (INLINED); the other packages stay external and load from node_modules (SDKs and
//    tracing load on demand; undici is loaded file by file on purpose, see
//    src/upstream/undici-core.ts: bundled, its ~500 KB compiled at once read no faster). The
//    CLI entry dist/src/cli/main.js is replaced by the bundle; what a command imports on
//    demand (migrate, usage, the ledger, S3, tracing...) goes to chunks beside it, loaded only
//    when used. Tests that import dist/src modules directly still get tsc's files. The bundle
//    holds one mime-types, with its tables computed here (scripts/precomputed-mime-types.js).
//    precompile-schemas is bundled too (dist/src/cli/precompile.js), so the startup cache it
//    fills is keyed by the same code `serve` runs (the keys hash the module that made an entry).
// 3. Write dist/build-id (a new random id per build: results the startup cache keeps from config
//    checks belong to the build that made them, src/config/remembered-checks.ts), precompile the
//    config meta-schemas' validators and fill the startup cache for the shipped config
//    (src/cli/precompile-schemas.ts).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { precomputedMimeTypes } from './precomputed-mime-types.js';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cliDir = join(root, 'dist', 'src', 'cli');
/** Resolves packages as the project does (the dev dependencies included). */
const requireFromRoot = createRequire(join(root, 'package.json'));

/**
 * Dependencies bundled into the CLI; every other dependency stays external. The store and
 * ledger drivers (ioredis, pg) go into the chunks that load them, so only a config that names
 * Redis or PostgreSQL loads them, from one file each: from ~100 files each they were ~100 ms
 * of the time to ready of such a config on a slow day (ioredis alone 75 -> 40 ms to require).
 */
const INLINED = new Set(['koa', '@koa/router', 'koa-compose', 'pino', '@hapi/bourne', 'ioredis', 'pg']);

/** Optional modules a bundled package requires inside a try (pg's native binding): left to runtime. */
const OPTIONAL_EXTERNALS = ['pg-native'];

/**
 * Koa tests every object body it sets or sends against the web globals `ReadableStream` and
 * `Response` (koa/lib/response.js, koa/lib/application.js). Node defines those globals lazily:
 * the first touch of `Response` loads Node's own fetch implementation (~20 ms on the event loop,
 * paid by the first JSON answer Koa writes: a probe, an error, a 404), `ReadableStream` the web
 * streams (~2 ms). The gateway never hands Koa either, so in the bundle the test first asks
 * whether the value has such an object's shape, and touches the global only then: a real
 * ReadableStream or Response still matches. Scoped to those two files; a Koa version whose
 * files no longer hold the test fails the build here (test/e2e/cli-lazy-globals.test.ts checks
 * the effect through the built CLI).
 */
const KOA_WEB_CHECKS = /(\w+) instanceof (ReadableStream|Response)\b/g;
const KOA_WEB_HELPERS = [
  "const __gatewayIsReadableStream = (v) => typeof v?.getReader === 'function' && v instanceof ReadableStream;",
  "const __gatewayIsResponse = (v) => typeof v?.arrayBuffer === 'function' && typeof v?.clone === 'function' && v instanceof Response;",
].join('\n');
const lazyWebGlobals = {
  name: 'koa-lazy-web-globals',
  setup(build) {
    build.onLoad({ filter: /[\\/]koa[\\/]lib[\\/](response|application)\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      let found = 0;
      const contents = source.replace(KOA_WEB_CHECKS, (_, value, type) => {
        found++;
        return `__gateway${type === 'Response' ? 'IsResponse' : 'IsReadableStream'}(${value})`;
      });
      if (found === 0) throw new Error(`${args.path}: no \`instanceof ReadableStream|Response\` left to guard; update scripts/build.js (KOA_WEB_CHECKS)`);
      // Appended, so the file keeps its line numbers (the helpers run only after it has loaded).
      return { contents: `${contents}\n${KOA_WEB_HELPERS}\n`, loader: 'js' };
    });
  },
};

/** Runs a node script in the project root; returns its exit status. */
function run(script, args = []) {
  return spawnSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' }).status ?? 1;
}

async function bundle() {
  const { build } = await import(requireFromRoot.resolve('esbuild-wasm'));
  const { dependencies } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const external = [...Object.keys(dependencies).filter((d) => !INLINED.has(d)).flatMap((d) => [d, `${d}/*`]), ...OPTIONAL_EXTERNALS];
  for (const f of readdirSync(cliDir)) if (f.startsWith('chunk-')) rmSync(join(cliDir, f));
  await build({
    entryPoints: { main: join(cliDir, 'main.js'), precompile: join(cliDir, 'precompile-schemas.js') },
    outdir: cliDir,
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    chunkNames: 'chunk-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external,
    // The bundled CommonJS packages call require(): in an ES module it is made here.
    banner: { js: "import { createRequire as __gatewayCreateRequire } from 'node:module'; const require = __gatewayCreateRequire(import.meta.url);" },
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [lazyWebGlobals, precomputedMimeTypes(requireFromRoot)],
  });
}

/** Builds dist/; returns an exit status. */
export async function buildAll() {
  const tsc = requireFromRoot.resolve('typescript/bin/tsc');
  const status = run(tsc, ['-p', 'tsconfig.json']);
  if (status !== 0) return status;
  await bundle();
  writeFileSync(join(root, 'dist', 'build-id'), `${randomBytes(16).toString('hex')}\n`);
  return run(join(cliDir, 'precompile.js'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await buildAll();
