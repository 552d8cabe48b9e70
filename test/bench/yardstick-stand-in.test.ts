import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../helpers/free-port.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const preload = join(dirname(fileURLToPath(import.meta.url)), '../../bench/yardstick-stand-in.js');

describe('bench/yardstick-stand-in (the bare proxy in the gateway\'s place under cpu-per-req.sh)', () => {
  let child: ChildProcess | undefined;
  afterEach(() => { child?.kill('SIGKILL'); });

  it('maps PORT and OPENAI_BASE_URL to the proxy\'s variables, answers GET /v1/models and finds the proxy\'s packages under BENCH_DEPS', async () => {
    const root = makeTempDir('gw-stand-in-');
    // A stand-in for baseline-proxy.cjs: a CommonJS script that needs a package from NODE_PATH.
    mkdirSync(join(root, 'deps/node_modules/bench-dep'), { recursive: true });
    writeFileSync(join(root, 'deps/node_modules/bench-dep/index.js'), 'module.exports = "from BENCH_DEPS";');
    writeFileSync(join(root, 'proxy.cjs'), [
      "const http = require('node:http');",
      "const dep = require('bench-dep');",
      'http.createServer((req, res) => res.end(JSON.stringify({ upstream: process.env.UPSTREAM, url: req.url, dep })))',
      "  .listen(Number(process.env.PROXY_PORT), '127.0.0.1', () => console.log('READY'));",
    ].join('\n'));
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', BENCH_DEPS: join(root, 'deps') };
    delete env.PROXY_PORT;
    delete env.UPSTREAM;
    delete env.NODE_PATH;
    child = spawn(process.execPath, ['--import', preload, join(root, 'proxy.cjs')], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child!.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('READY')) resolve(); });
      child!.on('exit', (code) => reject(new Error(`exited with ${code}`)));
    });
    const models = await (await fetch(`http://127.0.0.1:${port}/v1/models`)).json() as { data: Array<{ id: string; supported_endpoints: string[]; supported_parameters: string[] }> };
    expect(models.data[0]!.id).to.match(/^openai\//);
    expect(models.data[0]!.supported_endpoints).to.include('/v1/chat/completions');
    expect(models.data[0]!.supported_parameters).to.include('temperature');
    const other = await (await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, { method: 'POST', body: '{}' })).json();
    expect(other).to.deep.equal({ upstream: 'http://127.0.0.1:9', url: '/v1/chat/completions', dep: 'from BENCH_DEPS' });
  });
});
