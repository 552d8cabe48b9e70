import { randomBytes } from 'node:crypto';

// 64 random bits per process: ids of different instances (and restarts) never meet.
const PROCESS_PREFIX = randomBytes(8).toString('hex');
let counter = 0;

/**
 * A 32-hex-digit id unique across processes: this process's random 64-bit prefix and a
 * counter. Request and hold ids are made once per request; a UUID costs a random read and a
 * reformat each time, and these ids need uniqueness, not secrecy.
 */
export function uniqueHexId(): string {
  counter++;
  // Up to 2^53 per process; 14 hex digits hold that, padded to 16.
  const n = counter.toString(16);
  return PROCESS_PREFIX + '0000000000000000'.slice(n.length) + n;
}
