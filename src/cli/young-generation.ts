import { setFlagsFromString } from 'node:v8';

/**
 * V8 grows the young generation (new space) when much of what it allocates survives, which is
 * all of startup: module code, config, the runtime. Left alone it reached its 2 x 16 MB maximum
 * before the first request and kept it while idle (RSS at ready ~107 MB; V8's memory reducer
 * gave it back only ~20 s later), and the first scavenges under load copied startup survivors
 * (6-9 ms pauses). Held at its initial 1 MB semi-spaces during startup, idle RSS stays ~87 MB.
 *
 * Released with V8's default factor (2), it took ~8k requests to double its way back to the
 * maximum (1 -> 2 -> 4 -> 8 -> 16 MB, one step per capacity's worth of survivors), which cost
 * CPU per request in that window. Released with factor 16 (maximum / initial size) it grows in
 * one step, within the first ~50 ms of load (trace-gc over 20k requests: 83 scavenges against
 * 81 never held). The factor stays 16: after V8's memory reducer shrinks an idle young
 * generation, load regrows it in one step too (default: the same end size, reached slower).
 */
const FLAG = 'semi-space-growth-factor';
/** Node 20's maximum semi-space (16 MB) over its initial one (1 MB). */
const REGROW_FACTOR = 16;

let held = false;

/** Keeps the young generation at its initial size until `releaseYoungGeneration`. */
export function holdYoungGeneration(): void {
  // An operator's own setting of the factor (command line) is left alone.
  if ([...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((a) => a.includes(FLAG))) return;
  setFlagsFromString(`--${FLAG}=1`);
  held = true;
}

/** Lets the young generation grow again, to its maximum in one step (call once the server is ready). */
export function releaseYoungGeneration(): void {
  if (!held) return;
  setFlagsFromString(`--${FLAG}=${REGROW_FACTOR}`);
  held = false;
}
