/**
 * Preload for the yardstick's gateway slot: the longest event-loop delay of the gateway from
 * the benchmark's first request to exit, the first request included (issue 11's loop-delay goal):
 *   GATEWAY_CMD="node --import ./dist/bench/yardstick-loop-delay.js dist/src/cli/main.js serve" \
 *     LOOP_DELAY_FILE=/tmp/loop-delay.jsonl bash ../shared/bench/cpu-per-req.sh
 * A 1 ms timer chain starts at the first request on the port named by PORT (the yardstick's
 * gateway port; requests on other servers of the process, such as serve's own warm-up, do not
 * count). Each tick that comes late records the lateness; the longest, when it came (ms after
 * the first request), and the process CPU used during it (the process's own work if about
 * equal; the machine taking the core away if much less) are appended as one JSON line to
 * LOOP_DELAY_FILE at exit, or written to stderr without it. Startup is not measured: the loop
 * is expected to be busy then, and readiness waits for it.
 *
 * Not loop-monitor.ts (npm run bench's preload): that one keeps monitorEventLoopDelay's
 * histogram per case, read on SIGUSR2, which the yardstick never sends, and a histogram
 * cannot say when its longest delay came or whether the process was working through it.
 */
import { appendFileSync } from 'node:fs';
import { Server } from 'node:http';

const TICK_MS = 1;
const port = Number(process.env.PORT);
let started = false;
let last = 0;
let lastCpuMs = 0;
let origin = 0;
const worst = { maxMs: 0, atMs: 0, cpuMs: 0 };

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function tick(): void {
  const now = performance.now();
  const cpu = cpuMs();
  const late = now - last - TICK_MS;
  if (late > worst.maxMs) Object.assign(worst, { maxMs: late, atMs: now - origin, cpuMs: cpu - lastCpuMs });
  last = now;
  lastCpuMs = cpu;
  setTimeout(tick, TICK_MS).unref();
}

const emit = Server.prototype.emit;
Server.prototype.emit = function patchedEmit(this: Server, event: string | symbol, ...args: unknown[]): boolean {
  if (!started && event === 'request') {
    const address = this.address();
    if (address !== null && typeof address === 'object' && address.port === port) {
      started = true;
      origin = last = performance.now();
      lastCpuMs = cpuMs();
      setTimeout(tick, TICK_MS).unref();
    }
  }
  return Reflect.apply(emit, this, [event, ...args]) as boolean;
} as typeof Server.prototype.emit;

process.on('exit', () => {
  const round = (n: number) => Math.round(n * 10) / 10;
  const line = JSON.stringify({ measured: started, maxMs: round(worst.maxMs), atMs: Math.round(worst.atMs), cpuMs: round(worst.cpuMs) });
  if (process.env.LOOP_DELAY_FILE) appendFileSync(process.env.LOOP_DELAY_FILE, `${line}\n`);
  else process.stderr.write(`loop delay: ${line}\n`);
});
