import { createHash } from 'node:crypto';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { expect } from 'chai';
import OpenAI from 'openai';
import { parse, stringify } from 'yaml';
import { reloadGateway } from '../../src/cli/reload.js';
import { compile } from '../../src/compile/compile.js';
import { loadProject } from '../../src/config/load-project.js';
import { createLogger } from '../../src/observability/logger.js';
import { startGateway, type RunningGateway } from '../../src/server/start.js';
import { startHeldChat, type HeldChat } from '../kit/held-chat.js';
import { REPO_ROUTES, baseConfig, startServe, writeProject, type ServeProcess } from './project.js';
import { freePort } from '../helpers/free-port.js';
import { startMediaHost } from '../kit/providers/media-host.js';

const KEY = 'test-key-lifecycle';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const chat = (url: string, body: Record<string, unknown>, key = KEY) => fetch(`${url}/v1/chat/completions`, {
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify({ model: 'sandbox/echo-1', messages: [{ role: 'user', content: 'hi' }], ...body }),
});

/** A temp project with its own copy of routes/, so route files can be edited. */
function projectWithRoutes(config: string): { dir: string; configPath: string } {
  const dir = writeProject({ 'gateway.yaml': config.replace(`routes: ${REPO_ROUTES}`, 'routes: routes') });
  cpSync(REPO_ROUTES, join(dir, 'routes'), { recursive: true });
  return { dir, configPath: join(dir, 'gateway.yaml') };
}

/** Starts the real server in this process on a temp project. */
async function serveInProcess(configPath: string, env: Record<string, string>): Promise<RunningGateway> {
  const { runtime, diagnostics } = compile(loadProject(configPath, env), env);
  if (!runtime) throw new Error(diagnostics.map((d) => d.message).join('\n'));
  return startGateway(runtime, { host: '127.0.0.1', port: 0, logger: createLogger('silent') });
}

describe('config reload (SIGHUP / gateway reload)', () => {
  describe('#reloadGateway', () => {
    let gw: RunningGateway | undefined;
    let upstream: HeldChat | undefined;
    afterEach(async () => {
      await gw?.close();
      await upstream?.close();
      const violations = upstream?.upstream.violations ?? [];
      gw = undefined;
      upstream = undefined;
      expect(violations, 'requests OpenAI would have refused').to.deep.equal([]);
    });

    it('applies route schemas, route files, body limit, keys and models over HTTP, keeping shared state', async () => {
      const { dir, configPath } = projectWithRoutes(baseConfig({ port: 0 }));
      const env = { GATEWAY_API_KEYS: KEY };
      gw = await serveInProcess(configPath, env);
      expect((await chat(gw.url, { temperature: 1.5 })).status).to.equal(200);
      expect((await chat(gw.url, { metadata: { pad: 'x'.repeat(5000) } })).status).to.equal(200);
      expect((await fetch(`${gw.url}/v1/models/sandbox/echo-2`)).status).to.equal(404);
      expect((await fetch(`${gw.url}/livez`)).status).to.equal(404);
      expect((await chat(gw.url, {}, 'added-key-0001')).status).to.equal(401);

      // Route schema: temperature at most 1; a new route file; body limit; a YAML key; a model.
      const chatRoute = parse(readFileSync(join(dir, 'routes/chat-completions.yaml'), 'utf8')) as { schema: { properties: { temperature: { maximum: number } } } };
      chatRoute.schema.properties.temperature.maximum = 1;
      writeFileSync(join(dir, 'routes/chat-completions.yaml'), stringify(chatRoute));
      writeFileSync(join(dir, 'routes/livez.yaml'), 'method: GET\npath: /livez\nauth: none\nenvelope: default\nhandler: health\noperation: health\n');
      const config = readFileSync(configPath, 'utf8')
        .replace('auth:\n  keys_env: GATEWAY_API_KEYS\n', `auth:\n  keys_env: GATEWAY_API_KEYS\n  keys:\n    - { name: added, sha256: "${sha256('added-key-0001')}" }\nlimits:\n  body_bytes: 2000\n`)
        + '  - id: sandbox/echo-2\n    provider: sandbox\n    endpoints: [/v1/chat/completions]\n';
      writeFileSync(configPath, config);

      const outcome = reloadGateway(configPath, gw, env);
      expect(outcome.applied, JSON.stringify(outcome.diagnostics)).to.equal(true);
      const tooWarm = await chat(gw.url, { temperature: 1.5 });
      expect(tooWarm.status).to.equal(400);
      expect(((await tooWarm.json()) as { error: { code: string } }).error.code).to.equal('validation_failed');
      const tooBig = await chat(gw.url, { metadata: { pad: 'x'.repeat(5000) } });
      expect(tooBig.status).to.equal(413);
      expect((await fetch(`${gw.url}/v1/models/sandbox/echo-2`)).status).to.equal(200);
      expect((await fetch(`${gw.url}/livez`)).status).to.equal(200);
      expect((await chat(gw.url, {}, 'added-key-0001')).status).to.equal(200);
      expect((await chat(gw.url, {})).status, 'the env key still works').to.equal(200);
    });

    it('refuses a broken config with its findings and keeps the running one serving', async () => {
      const { configPath } = projectWithRoutes(baseConfig({ port: 0 }));
      const env = { GATEWAY_API_KEYS: KEY };
      gw = await serveInProcess(configPath, env);
      const good = readFileSync(configPath, 'utf8');
      writeFileSync(configPath, good.replace('  - id: sandbox/echo-1\n    provider: sandbox', '  - id: sandbox/echo-1\n    provider: nowhere'));
      const refused = reloadGateway(configPath, gw, env);
      expect(refused.applied).to.equal(false);
      expect(refused.diagnostics.some((d) => d.severity === 'error' && d.file.endsWith('gateway.yaml') && d.line > 1)).to.equal(true);
      writeFileSync(configPath, 'server: [unclosed\n');
      expect(reloadGateway(configPath, gw, env).applied).to.equal(false);
      expect((await chat(gw.url, {})).status).to.equal(200);
      expect((await fetch(`${gw.url}/readyz`)).status).to.equal(200);
    });

    it('lets a request in flight finish on the config it started on', async () => {
      upstream = await startHeldChat('sk-held');
      const { configPath } = projectWithRoutes(baseConfig({ port: 0 }));
      const env = { GATEWAY_API_KEYS: KEY, OPENAI_API_KEY: 'sk-held', OPENAI_BASE_URL: upstream.baseUrl };
      gw = await serveInProcess(configPath, env);
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, maxRetries: 0 });
      const stream = await client.chat.completions.create({ model: 'openai/slow-1', stream: true, messages: [{ role: 'user', content: 'hi' }] });
      const text: string[] = [];
      const done = (async () => { for await (const c of stream) text.push(c.choices[0]?.delta.content ?? ''); })();
      await upstream.upstream.whenHolding(1);
      // The new config no longer has the model the stream is using.
      writeFileSync(configPath, readFileSync(configPath, 'utf8').replace(/  - id: openai\/slow-1\n(    .*\n)+/, ''));
      expect(reloadGateway(configPath, gw, env).applied).to.equal(true);
      const gone = await client.chat.completions.create({ model: 'openai/slow-1', messages: [{ role: 'user', content: 'hi' }] }).then(() => undefined, (e: unknown) => e);
      expect((gone as InstanceType<typeof OpenAI.APIError>).status).to.equal(400);
      upstream.release();
      await done;
      expect(text.join('')).to.equal('first second');
    });

    it('applies fetch limits (limits.fetch) to media the gateway fetches', async () => {
      const media = await startMediaHost({ '/image.png': () => ({ status: 200, headers: { 'content-type': 'image/png' }, body: Buffer.alloc(4096, 1) }) });
      const imageUrl = `${media.url}/image.png`;
      try {
        const models = '  - id: sandbox/image-1\n    provider: sandbox\n    endpoints: [/v1/images/edits]\n';
        const { configPath } = projectWithRoutes(baseConfig({ port: 0, models }));
        const env = { GATEWAY_API_KEYS: KEY };
        gw = await serveInProcess(configPath, env);
        const edit = async () => {
          const res = await fetch(`${gw!.url}/v1/images/edits`, {
            method: 'POST',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'sandbox/image-1', prompt: 'a hat', image: imageUrl }),
          });
          return { status: res.status, code: ((await res.json()) as { error?: { code?: string } }).error?.code };
        };
        expect(await edit()).to.deep.equal({ status: 400, code: 'url_not_allowed' });
        writeFileSync(configPath, readFileSync(configPath, 'utf8').replace('auth:\n', 'limits:\n  fetch: { allow_private: true, max_bytes: 1000, timeout_ms: 5000 }\nauth:\n'));
        expect(reloadGateway(configPath, gw, env).applied).to.equal(true);
        expect(await edit()).to.deep.equal({ status: 400, code: 'fetch_too_large' });
      } finally {
        await media.close();
      }
    });

    it('rotates a provider key read from <VAR>_FILE: replace the file, reload, the upstream gets the new key', async () => {
      // The provider accepts both keys while one is rotated.
      upstream = await startHeldChat('sk-second', { extraKeys: ['sk-first'] });
      const { dir, configPath } = projectWithRoutes(baseConfig({ port: 0 }));
      writeFileSync(join(dir, 'openai-key'), 'sk-first\n');
      const env = { GATEWAY_API_KEYS: KEY, OPENAI_API_KEY_FILE: join(dir, 'openai-key'), OPENAI_BASE_URL: upstream.baseUrl };
      gw = await serveInProcess(configPath, env);
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: KEY, maxRetries: 0 });
      const ask = () => client.chat.completions.create({ model: 'openai/slow-1', messages: [{ role: 'user', content: 'hi' }] });
      await ask();
      writeFileSync(join(dir, 'openai-key'), 'sk-second\n');
      await ask();
      expect(reloadGateway(configPath, gw, env).applied).to.equal(true);
      await ask();
      expect(upstream.upstream.requests.map((r) => r.headers.authorization)).to.deep.equal(['Bearer sk-first', 'Bearer sk-first', 'Bearer sk-second']);
    });

    it('keeps the generated key when no key is configured', async () => {
      const { configPath } = projectWithRoutes(baseConfig({ port: 0 }));
      gw = await serveInProcess(configPath, {});
      const generated = gw.store.current().generatedKey!;
      expect(generated).to.match(/^gw-/);
      const outcome = reloadGateway(configPath, gw, {});
      expect(outcome.applied).to.equal(true);
      expect(outcome.newGeneratedKey).to.equal(undefined);
      expect(gw.store.current().generatedKey).to.equal(generated);
      expect((await chat(gw.url, {}, generated)).status).to.equal(200);
    });
  });

  describe('gateway serve + SIGHUP / gateway reload', () => {
    let gw: ServeProcess | undefined;
    afterEach(() => { if (gw && gw.child.exitCode === null) gw.child.kill('SIGKILL'); gw = undefined; });

    it('reloads on SIGHUP, refuses a broken edit with file:line:col in the log, and `gateway reload` signals it', async () => {
      const port = await freePort();
      const dir = writeProject({ 'gateway.yaml': baseConfig({ port }) });
      const configPath = join(dir, 'gateway.yaml');
      gw = await startServe(dir, port);
      expect((await chat(gw.url, { metadata: { pad: 'x'.repeat(5000) } })).status).to.equal(200);

      const good = readFileSync(configPath, 'utf8');
      writeFileSync(configPath, good.replace('auth:\n', 'limits:\n  body_bytes: 2000\nauth:\n'));
      gw.child.kill('SIGHUP');
      await gw.waitFor('"msg":"config reloaded"');
      expect((await chat(gw.url, { metadata: { pad: 'x'.repeat(5000) } })).status).to.equal(413);

      writeFileSync(configPath, good.replace('  shutdown_grace_s: 30\n', '  shutdown_grace_s: 30\n  shutdown_grace: 3\n'));
      gw.child.kill('SIGHUP');
      await gw.waitFor('config reload refused');
      expect(gw.output()).to.match(/gateway\.yaml:\d+:\d+ E_UNKNOWN_KEY unknown key 'shutdown_grace'/);
      expect((await chat(gw.url, { metadata: { pad: 'x'.repeat(5000) } })).status, 'the old config keeps serving').to.equal(413);

      // `gateway reload` lints first (and refuses to signal a broken config) ...
      const cli = (args: string[]) => spawnSync(process.execPath, [join(process.cwd(), 'dist/src/cli/main.js'), 'reload', '--config', configPath, ...args], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
      const broken = cli([]);
      expect(broken.status).to.equal(1);
      expect(broken.stderr).to.include('not reloading');
      // ... then signals the server found through its pid file.
      writeFileSync(configPath, good);
      const ok = cli([]);
      expect(ok.status, ok.stderr).to.equal(0);
      await gw.waitFor(/config reloaded[\s\S]*config reload refused[\s\S]*config reloaded/);
      expect((await chat(gw.url, { metadata: { pad: 'x'.repeat(5000) } })).status).to.equal(200);
    });
  });
});
