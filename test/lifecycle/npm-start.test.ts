import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { freePort } from '../helpers/free-port.js';
import { waitFor } from '../helpers/wait-for.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/** True while a process with this pid exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for `check` (helpers/wait-for.ts); a timeout's error carries the gateway's output. */
async function until(check: () => boolean | Promise<boolean>, ms: number, label: string, output: () => string): Promise<void> {
  await waitFor(async () => check(), ms, label).catch((e: Error) => { throw new Error(`${e.message}:\n${output()}`); });
}

/** `npm start` in the repo (the README's start command), in its own process group, ready; with the gateway's pid. */
async function npmStart(port: number): Promise<{ npm: ChildProcess; gatewayPid: number; output(): string }> {
  const pidFile = join(makeTempDir('gw-npm-start-'), 'gateway.pid');
  const npm = spawn('npm', ['start'], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), GATEWAY_API_KEYS: 'test-key-npm-start', GATEWAY_PID_FILE: pidFile, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, as a terminal's foreground job is: a Ctrl-C reaches the whole group.
    detached: true,
  });
  let out = '';
  npm.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
  npm.stderr!.on('data', (c: Buffer) => { out += c.toString(); });
  await until(() => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false), 20_000, 'npm start to be ready', () => out);
  if (!existsSync(pidFile)) throw new Error(`npm start wrote no pid file:\n${out}`);
  return { npm, gatewayPid: Number(readFileSync(pidFile, 'utf8').trim()), output: () => out };
}

/**
 * A request the gateway is still reading: headers sent, body not finished. Resolves once the
 * gateway has taken it in (its `100 Continue`: node answers that as it hands the request to
 * the pipeline), so a signal sent next finds it in flight.
 */
function heldRequest(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('POST /v1/chat/completions HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer test-key-npm-start\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n{');
    });
    socket.once('data', (c: Buffer) => (c.toString().startsWith('HTTP/1.1 100 ') ? resolve(socket) : reject(new Error(`no 100 Continue: ${c.toString()}`))));
    socket.on('error', () => undefined);
  });
}

describe('npm start (the README\'s start command) and signals', function () {
  this.timeout(40_000);
  let started: { npm: ChildProcess; gatewayPid: number } | undefined;
  afterEach(() => {
    if (started && alive(started.gatewayPid)) process.kill(started.gatewayPid, 'SIGKILL');
    if (started?.npm.exitCode === null) started.npm.kill('SIGKILL');
    started = undefined;
  });

  it('a SIGTERM to npm alone (docker stop, systemd) reaches the gateway: it drains and exits, no orphan left serving', async () => {
    const port = await freePort();
    const s = await npmStart(port);
    started = s;
    s.npm.kill('SIGTERM');
    await until(() => !alive(s.gatewayPid), 10_000, 'the gateway to exit', s.output);
    expect(await fetch(`http://127.0.0.1:${port}/healthz`).then(() => 'answered', () => 'refused')).to.equal('refused');
  });

  it('a Ctrl-C (SIGINT to the process group, forwarded again by npm) drains the request in flight, not exits at once', async () => {
    const port = await freePort();
    const s = await npmStart(port);
    started = s;
    const held = await heldRequest(port);
    let answer = '';
    held.on('data', (c: Buffer) => { answer += c.toString(); });
    process.kill(-s.npm.pid!, 'SIGINT');
    await new Promise((r) => setTimeout(r, 700));
    expect(alive(s.gatewayPid), `still draining:\n${s.output()}`).to.equal(true);
    // The request ends; the drain finishes with it.
    held.end('}');
    await until(() => !alive(s.gatewayPid), 10_000, 'the gateway to exit', s.output);
    expect(answer).to.match(/^HTTP\/1\.1 400 /m);
    expect(s.output()).to.include('gateway stopped');
    expect(s.output()).to.not.include('second signal');
  });

  it('a second signal asked for later still exits at once', async () => {
    const port = await freePort();
    const s = await npmStart(port);
    started = s;
    const held = await heldRequest(port);
    process.kill(s.gatewayPid, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 700));
    expect(alive(s.gatewayPid)).to.equal(true);
    process.kill(s.gatewayPid, 'SIGTERM');
    await until(() => !alive(s.gatewayPid), 5_000, 'the gateway to exit', s.output);
    expect(s.output()).to.include('second signal during drain; exiting now');
    held.destroy();
  });
});
