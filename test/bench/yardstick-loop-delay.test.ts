import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/free-port.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const preload = fileURLToPath(new URL('../../bench/yardstick-loop-delay.js', import.meta.url));

/**
 * A server that blocks its loop for START_BLOCK_MS before listening, answers each request, blocks
 * BLOCK_MS on the second one, and exits on the third. A second server on another port takes one
 * request first (serve's warm-up stands in there): it must not start the measure.
 */
const SERVER = `
import { createServer, request } from 'node:http';
const spin = (ms) => { const end = performance.now() + ms; while (performance.now() < end); };
spin(Number(process.env.START_BLOCK_MS));
const other = createServer((q, r) => { spin(150); r.end('x'); }).listen(0, '127.0.0.1', () => {
  request({ port: other.address().port, host: '127.0.0.1' }, (r) => { r.resume(); r.on('end', () => { other.close(); main(); }); }).end();
});
function main() {
  let n = 0;
  createServer((q, r) => { n++; if (n === 2) spin(Number(process.env.BLOCK_MS)); r.end('ok'); if (n === 3) setTimeout(() => process.exit(0), 20); })
    .listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('READY\\n'));
}
`;

async function measure(blockMs: number): Promise<{ measured: boolean; maxMs: number; atMs: number; cpuMs: number }> {
  const dir = makeTempDir('gw-loop-delay-');
  const script = join(dir, 'server.mjs');
  const out = join(dir, 'delay.jsonl');
  writeFileSync(script, SERVER);
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', preload, script], {
    env: { ...process.env, PORT: String(port), BLOCK_MS: String(blockMs), START_BLOCK_MS: '120', LOOP_DELAY_FILE: out },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve) => child.stdout!.on('data', (c: Buffer) => { if (c.toString().includes('READY')) resolve(); }));
  for (let i = 0; i < 3; i++) {
    await fetch(`http://127.0.0.1:${port}/v1/models`).then((r) => r.text()).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  await exited;
  return JSON.parse(readFileSync(out, 'utf8').trim()) as { measured: boolean; maxMs: number; atMs: number; cpuMs: number };
}

describe('bench/yardstick-loop-delay', () => {
  it('reports the longest loop delay from the first request on the PORT server, not startup or other servers', async () => {
    const blocked = await measure(60);
    expect(blocked.measured).to.equal(true);
    // The 60 ms block on the second request, not the 120 ms before listening or the 150 ms of the other server.
    expect(blocked.maxMs).to.be.within(55, 110);
    expect(blocked.cpuMs).to.be.at.least(40);
    const quiet = await measure(0);
    expect(quiet.maxMs).to.be.below(50);
  });
});
