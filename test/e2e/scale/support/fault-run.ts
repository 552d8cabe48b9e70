/**
 * The bookkeeping of a Redis fault run: calls with the time they ran, fault windows (from the
 * moment Redis is stalled or killed until it answers again), and which calls overlap a window.
 */
import type { RedisChild } from '../../../store/support/redis.js';

/** One call of the run: when it started and ended (ms), its status and error code. */
export interface TimedCall { key: string; startedAt: number; endedAt: number; status: number; code?: string; costNano?: number; detail?: string }

/** One fault: what it was and when Redis was away (until it answered again). */
export interface FaultWindow { what: string; from: number; to: number }

/** Whether a call ran (even partly) inside a fault window widened by `graceMs` after it. */
export function inFaultWindow(call: TimedCall, windows: readonly FaultWindow[], graceMs: number): boolean {
  return windows.some((w) => call.startedAt <= w.to + graceMs && call.endedAt >= w.from);
}

/** What a kill fault lets the test do while Redis is surely down (it is awaited before the restart). */
export type WhileDown = () => Promise<void>;

/**
 * Stalls (SIGSTOP) or kills and restarts `redis` at random until `until`, 150-1950 ms each,
 * 300-1200 ms apart, recording each window. `whileDown` runs during some kills (the first, then
 * every third), before Redis comes back; `onBack` hears when Redis answers again after it, and
 * 2.5 s pass before the next fault.
 */
export async function faultSchedule(redis: RedisChild, until: number, windows: FaultWindow[], whileDown?: WhileDown, onBack?: (at: number) => void): Promise<void> {
  await new Promise((r) => setTimeout(r, 800));
  let kills = 0;
  while (Date.now() < until - 2500) {
    const pause = 150 + Math.floor(Math.random() * 1800);
    const from = Date.now();
    if (Math.random() < 0.5) {
      redis.pause();
      await new Promise((r) => setTimeout(r, pause));
      redis.resume();
      windows.push({ what: `stall ${pause} ms`, from, to: Date.now() });
    } else {
      await redis.stop();
      const work = whileDown && kills++ % 3 === 0 ? whileDown : undefined;
      await Promise.all([work?.(), new Promise((r) => setTimeout(r, pause))]);
      await redis.start();
      const to = Date.now();
      windows.push({ what: `kill, restart after ${to - from} ms${work ? ' (records written meanwhile)' : ''}`, from, to });
      if (work) {
        onBack?.(to);
        // Quiet long enough for the records to show on the other instances (the 2 s the test allows).
        await new Promise((r) => setTimeout(r, 2500));
      }
    }
    await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 900)));
  }
}
