/**
 * The cloud credential libraries load only when a provider uses them (issue 29): a `gateway
 * serve` process records every module URL its ES module loader resolves (a resolve hook
 * registered by a preload), serves a call, and the list is checked for google-auth-library and
 * @azure/identity.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from '../../helpers/free-port.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { makeServiceAccount, startGoogleTokenServer } from './support/google-token-server.js';

const KEY = 'gw-lazy-cloud-key-0123';

/** Runs `gateway serve` with `env` until ready, makes one sandbox call, stops it, and returns the resolved module URLs. */
async function loadedModules(env: Record<string, string>, until: () => boolean = () => true): Promise<string[]> {
  const dir = makeTempDir('gw-lazy-cloud-');
  const log = join(dir, 'resolved.txt');
  writeFileSync(log, '');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(hooks, [
    "import { appendFileSync } from 'node:fs';",
    'export async function resolve(specifier, context, next) {',
    '  const found = await next(specifier, context);',
    `  appendFileSync(${JSON.stringify(log)}, found.url + '\\n');`,
    '  return found;',
    '}',
  ].join('\n'));
  const preload = join(dir, 'preload.mjs');
  writeFileSync(preload, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', pathToFileURL(preload).href, resolve('dist/src/cli/main.js'), 'serve'], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, PORT: String(port), HOST: '127.0.0.1', GATEWAY_API_KEYS: KEY, LOG_LEVEL: 'silent', GATEWAY_FILES_DIR: join(dir, 'files'), ...env },
    stdio: 'ignore',
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 20_000;
    while ((await fetch(`${url}/readyz`).then((r) => r.status, () => 0)) !== 200) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('gateway did not become ready');
      await new Promise((r) => setTimeout(r, 50));
    }
    const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'hi' }] }) });
    expect(res.status).to.equal(200);
    // Waits (a loaded machine is slow) for what the caller expects of the running process.
    const waitUntil = Date.now() + 15_000;
    while (!until() && Date.now() < waitUntil) await new Promise((r) => setTimeout(r, 50));
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    await exited;
  }
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

const uses = (urls: string[], pkg: string) => urls.some((u) => u.includes(`/node_modules/${pkg}/`));

describe('e2e cloud: credential libraries load only when used', function () {
  this.timeout(60_000);

  it('loads neither google-auth-library nor @azure/identity without cloud credentials', async () => {
    const urls = await loadedModules({});
    expect(urls.length, 'the hook saw the gateway load').to.be.greaterThan(5);
    expect(uses(urls, 'google-auth-library')).to.equal(false);
    expect(uses(urls, '@azure/identity')).to.equal(false);
  });

  it('loads google-auth-library (only) once a Vertex provider has credentials', async () => {
    const sa = makeServiceAccount('lazy-proj');
    const tokens = await startGoogleTokenServer(sa);
    try {
      const urls = await loadedModules({ GOOGLE_CLOUD_PROJECT: 'lazy-proj', GOOGLE_APPLICATION_CREDENTIALS: sa.file, GOOGLE_TOKEN_URL: tokens.url, VERTEX_BASE_URL: 'http://127.0.0.1:9' }, () => tokens.issued > 0);
      expect(uses(urls, 'google-auth-library')).to.equal(true);
      expect(uses(urls, '@azure/identity')).to.equal(false);
      expect(tokens.issued, 'the token was fetched at startup, in the background').to.be.greaterThan(0);
    } finally {
      await tokens.close();
      sa.remove();
    }
  });
});
