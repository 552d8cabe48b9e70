import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { freePort } from '../helpers/free-port.js';
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

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('npm start (the README\'s start command) under a process manager', function () {
  this.timeout(30_000);

  it('a SIGTERM to npm reaches the gateway: it drains and exits, no orphan left serving', async () => {
    const port = await freePort();
    const pidFile = join(makeTempDir('gw-npm-start-'), 'gateway.pid');
    // What `docker stop` or systemd does to `CMD ["npm", "start"]`: signal npm's own pid only.
    const npm = spawn('npm', ['start'], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), GATEWAY_API_KEYS: 'test-key-npm-start', GATEWAY_PID_FILE: pidFile, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    const npmExited = new Promise<number | null>((r) => npm.once('exit', (code) => r(code)));
    let gatewayPid = 0;
    try {
      expect(await until(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false)), 20_000), 'ready').to.equal(true);
      expect(existsSync(pidFile), 'pid file').to.equal(true);
      gatewayPid = Number(readFileSync(pidFile, 'utf8').trim());
      expect(gatewayPid).to.be.greaterThan(0);
      npm.kill('SIGTERM');
      expect(await until(() => !alive(gatewayPid), 10_000), 'the gateway process exited').to.equal(true);
      await npmExited;
      expect(await fetch(`http://127.0.0.1:${port}/healthz`).then(() => 'answered', () => 'refused')).to.equal('refused');
    } finally {
      if (gatewayPid && alive(gatewayPid)) process.kill(gatewayPid, 'SIGKILL');
      if (npm.exitCode === null) npm.kill('SIGKILL');
    }
  });
});
