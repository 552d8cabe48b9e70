import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';

/**
 * A content-addressed cache of what `serve` derives from config files and nothing else: the
 * data tree of a YAML file before `${...}` substitution (yaml-source.ts) and the standalone code
 * of a route's request validator (request-schema.ts). Cold, the `yaml` parser and ajv's code
 * generation were ~60% of the time to ready (~450 ms of the shipped config's ~1100 ms). An entry's
 * name is the sha256 of its inputs and of the code that made it, so a changed file, schema or
 * dependency is a miss, never a stale hit. Best effort: an unwritable folder only means no
 * cache. `GATEWAY_CACHE_DIR` moves it (default dist/cache/, filled by the build for the shipped
 * config); `GATEWAY_CACHE_DIR=off` turns it off.
 */
const MAX_ENTRIES = 400;

let dir: string | null | undefined;
/** Names in the folder: listed once per process, then kept up to date by this module's writes. */
let listing: Set<string> | undefined;

function cacheDir(): string | null {
  if (dir === undefined) {
    const setting = process.env.GATEWAY_CACHE_DIR;
    dir = setting === 'off' ? null : setting || join(packageRoot, 'dist', 'cache');
  }
  return dir;
}

/** sha256 (hex) of the parts, each length-prefixed so no two lists give one text. */
export function cacheKey(...parts: readonly string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(`${p.length}:`).update(p);
  return h.digest('hex');
}

/** The text stored under `key`, or undefined. */
export function readCached(key: string, ext: string): string | undefined {
  const d = cacheDir();
  if (!d) return undefined;
  try {
    return readFileSync(join(d, `${key}.${ext}`), 'utf8');
  } catch {
    return undefined;
  }
}

/** Whether an entry is stored under `key`, without reading it (one listing of the folder per process). */
export function hasCached(key: string, ext: string): boolean {
  const d = cacheDir();
  if (!d) return false;
  if (!listing) {
    try {
      listing = new Set(readdirSync(d));
    } catch {
      listing = new Set();
    }
  }
  return listing.has(`${key}.${ext}`);
}

/** Stores `text` under `key` (written aside, then renamed: readers never see half a file). */
export function writeCached(key: string, ext: string, text: string): void {
  const d = cacheDir();
  if (!d) return;
  try {
    mkdirSync(d, { recursive: true });
    const tmp = join(d, `.${key}.${process.pid}.tmp`);
    writeFileSync(tmp, text);
    renameSync(tmp, join(d, `${key}.${ext}`));
    listing?.add(`${key}.${ext}`);
    pruneSometimes(d);
  } catch {
    // read-only or full disk: the next start parses and compiles again, as without a cache
  }
}

let writes = 0;

/** Every config edit adds entries: past MAX_ENTRIES, the least recently written half goes. */
function pruneSometimes(d: string): void {
  if (++writes % 20 !== 1) return;
  const names = readdirSync(d).filter((n) => !n.startsWith('.'));
  if (names.length <= MAX_ENTRIES) return;
  const byAge = names.map((n) => ({ n, t: statSync(join(d, n)).mtimeMs })).sort((a, b) => a.t - b.t);
  for (const { n } of byAge.slice(0, names.length - MAX_ENTRIES / 2)) {
    unlinkSync(join(d, n));
    listing?.delete(n);
  }
}

/** Forgets the folder setting (tests that change GATEWAY_CACHE_DIR). */
export function resetCacheDir(): void {
  dir = undefined;
  listing = undefined;
}

/** sha256 of a file's text (a module's own code, a dependency's package.json), '' when unreadable. */
export function fileHash(path: string): string {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return '';
  }
}
