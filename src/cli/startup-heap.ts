import { setFlagsFromString } from 'node:v8';

/**
 * V8 doubles the young generation (two semi-spaces, up to 16 MiB each) whenever many objects
 * survive a scavenge, and loading ~1,100 modules plus the config makes nearly everything
 * survive: by the time the gateway listens both semi-spaces are at their maximum, 32 MiB of RSS
 * that stays committed while idle (V8 shrinks it only after a memory-reducing GC). Holding the
 * growth factor at 1 while starting keeps the young generation at its 1 MiB initial size; the
 * startup objects are promoted to old space, where they live anyway. Under load the factor is
 * back at V8's default, so the young generation grows exactly as before and request handling
 * sees the same heap configuration.
 */
const V8_DEFAULT_GROWTH_FACTOR = 2;

/** True when the operator set the factor (NODE_OPTIONS or node flags): theirs is left alone. */
function operatorChose(): boolean {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  return /semi[-_]space[-_]growth[-_]factor/.test(given);
}

let held = false;

/** Keeps V8's young generation at its initial size until {@link releaseYoungGeneration}. */
export function holdYoungGeneration(): void {
  if (held || operatorChose()) return;
  setFlagsFromString('--semi-space-growth-factor=1');
  held = true;
}

/** Back to V8's default growth once startup is done (before serving requests). */
export function releaseYoungGeneration(): void {
  if (!held) return;
  setFlagsFromString(`--semi-space-growth-factor=${V8_DEFAULT_GROWTH_FACTOR}`);
  held = false;
}
