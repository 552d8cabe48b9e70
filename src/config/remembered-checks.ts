import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';
import { cacheKey, readCached, writeCached } from './startup-cache.js';

/** Written by every build (scripts/build.js): what ties a remembered result to the code that found it. */
const BUILD_ID_FILE = join(packageRoot, 'dist', 'build-id');

let buildId: string | null | undefined;

/** This build's id, or null outside a build (code run from tsc's output alone, say). */
function currentBuildId(): string | null {
  if (buildId === undefined) {
    try {
      buildId = readFileSync(BUILD_ID_FILE, 'utf8').trim() || null;
    } catch {
      buildId = null;
    }
  }
  return buildId;
}

/**
 * The startup-cache key of a result this build derived from `inputs` alone, or undefined when
 * there is no build id: a result is reused only by the code that produced it, and any rebuild
 * (a new id) starts afresh. The checks a start runs on its config (the meta-schemas, the
 * cross-checks) and the fleet's config hash were ~60 ms of the shipped config's time to ready;
 * an unchanged config in an unchanged build gives the same answers, so they are kept.
 */
export function buildResultKey(kind: string, ...inputs: readonly string[]): string | undefined {
  const id = currentBuildId();
  return id === null ? undefined : cacheKey(kind, id, ...inputs);
}

/**
 * Whether a check passed for this key before. Only clean passes are remembered (rememberPass):
 * a finding of any severity, or a pass that changed the data on its way, runs the check every
 * time, so every finding is reported at every start and lint.
 */
export function passedBefore(key: string | undefined): boolean {
  return key !== undefined && readCached(key, 'pass') !== undefined;
}

/** Remembers that the check of this key passed cleanly. */
export function rememberPass(key: string | undefined): void {
  if (key !== undefined) writeCached(key, 'pass', '');
}
