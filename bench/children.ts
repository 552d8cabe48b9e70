/**
 * Child processes of the benchmark: each server under test runs in its own process so its
 * memory and CPU are its own, read from /proc (Linux) while the load runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { freePort } from '../test/helpers/free-port.js';

/** A running child server. */
export interface Child { name: string; pid: number; url: string; proc: ChildProcess; stop(): Promise<void> }

/** Clock ticks per second of /proc/PID/stat CPU times (USER_HZ: 100 on every Linux ABI in use). */
const USER_HZ = 100;

function stopper(proc: ChildProcess, signal: NodeJS.Signals): () => Promise<void> {
  return () => new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    proc.once('exit', () => { clearTimeout(timer); resolve(); });
    proc.kill(signal);
  });
}

/** Starts `node <script>` and resolves once it prints `READY <port>`. */
export function spawnReady(name: string, script: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Child> {
  const proc = spawn(process.execPath, [...nodeArgs, script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /READY (\d+)/.exec(out);
      if (!match) return;
      proc.stdout!.off('data', onData);
      proc.stdout!.resume();
      resolve({ name, pid: proc.pid!, url: `http://127.0.0.1:${match[1]}`, proc, stop: stopper(proc, 'SIGTERM') });
    };
    proc.stdout!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`${name} exited with code ${code} before it was ready`)));
  });
}

/**
 * Starts the real gateway CLI (`gateway serve`) and resolves once GET /v1/models answers 200.
 * Its stdout (the access log) goes to /dev/null; SIGINT lets it exit cleanly (and write a CPU
 * profile when started with --cpu-prof).
 */
export async function spawnGateway(cli: string, configPath: string, env: Record<string, string>, key: string, nodeArgs: string[] = []): Promise<Child> {
  const port = await freePort();
  const proc = spawn(process.execPath, [...nodeArgs, cli, 'serve', '--config', configPath], {
    env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (c: Buffer) => { stderr += c.toString(); });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`gateway exited with code ${proc.exitCode}:\n${stderr.slice(-4000)}`);
    try {
      const res = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`gateway did not answer within 30 s:\n${stderr.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { name: 'gateway', pid: proc.pid!, url, proc, stop: stopper(proc, 'SIGINT') };
}

/** Resident and peak resident memory (KiB) of a process, from /proc/PID/status. */
export function readMemory(pid: number): { rssKiB: number; hwmKiB: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { rssKiB: field('VmRSS'), hwmKiB: field('VmHWM') };
  } catch {
    return { rssKiB: 0, hwmKiB: 0 };
  }
}

/** CPU time (user + system, ms) a process has used, from /proc/PID/stat. */
export function readCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return 0;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; returns the largest value seen (KiB). */
export function sampleRss(pid: number, everyMs = 200): { stop(): number } {
  let peak = readMemory(pid).rssKiB;
  const timer = setInterval(() => { peak = Math.max(peak, readMemory(pid).rssKiB); }, everyMs);
  return { stop: () => { clearInterval(timer); return Math.max(peak, readMemory(pid).rssKiB); } };
}
