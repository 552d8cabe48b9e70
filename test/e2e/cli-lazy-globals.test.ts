import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { makeTempDir } from '../helpers/temp-dir.js';

/**
 * The built CLI (the bundle of scripts/build.js) answers JSON bodies through Koa without touching
 * Node's lazy `Response` global, whose first touch loads Node's own fetch implementation (~20 ms
 * on the event loop, paid by the first probe or error answer). A preload records, at exit, which
 * of Node's internal modules the process loaded.
 */
describe('e2e: the CLI bundle answers Koa bodies without loading Node\'s fetch', function () {
  this.timeout(30_000);
  let child: ChildProcess | undefined;
  after(() => { child?.kill('SIGKILL'); });

  it('serves probes, a model list, a 400 and a 404 with internal/deps/undici never loaded', async () => {
    const dir = makeTempDir('gw-lazy-globals-');
    const record = join(dir, 'modules.json');
    const preload = join(dir, 'record-modules.mjs');
    writeFileSync(preload, [
      "import { writeFileSync } from 'node:fs';",
      `process.on('exit', () => writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.moduleLoadList)));`,
    ].join('\n'));
    const port = await freePort();
    const key = 'gw-lazy-globals-key';
    child = spawn(process.execPath, ['--import', preload, resolve('dist/src/cli/main.js'), 'serve'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), HOST: '127.0.0.1', GATEWAY_API_KEYS: key, LOG_LEVEL: 'silent' },
      stdio: 'ignore',
    });
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const ready = await fetch(`${url}/readyz`).then((r) => r.status, () => 0);
      if (ready === 200) break;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('gateway did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    const health = await fetch(`${url}/healthz`);
    expect(health.status).to.equal(200);
    const models = await fetch(`${url}/v1/models`);
    expect(models.status).to.equal(200);
    expect(((await models.json()) as { data: unknown[] }).data).to.not.be.empty;
    const invalid = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"model":"sandbox/echo-1"}' });
    expect(invalid.status).to.equal(400);
    expect(((await invalid.json()) as { error: { code: string } }).error.code).to.equal('validation_failed');
    const missing = await fetch(`${url}/v1/nothing-here`);
    expect(missing.status).to.equal(404);
    await missing.arrayBuffer();
    const exited = new Promise((done) => child!.once('exit', done));
    child.kill('SIGTERM');
    await exited;
    const loaded = JSON.parse(readFileSync(record, 'utf8')) as string[];
    expect(loaded.length, 'the preload recorded the module list').to.be.greaterThan(50);
    expect(loaded.filter((m) => m.includes('internal/deps/undici'))).to.deep.equal([]);
  });
});
