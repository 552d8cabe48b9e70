/**
 * What a reload hands over besides the pipeline: the fleet's config hash (what /readyz and
 * `gateway status` report) follows the config in force, and the replaced pipeline's media fetch
 * pool is closed once the requests that started on it have ended, not before and not never.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Socket } from 'node:net';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { reloadGateway } from '../../src/cli/reload.js';
import { compile } from '../../src/compile/compile.js';
import { loadProject } from '../../src/config/load-project.js';
import { computeConfigHash } from '../../src/fleet/config-hash.js';
import { readFleet } from '../../src/fleet/fleet.js';
import { createLogger } from '../../src/observability/logger.js';
import { startGateway, type RunningGateway } from '../../src/server/start.js';
import { connectRedis } from '../../src/store/redis-connection.js';
import { writeProject as writeStoreProject } from '../e2e/budget/support/project.js';
import { makePng } from '../kit/providers/media-bytes.js';
import { startMediaHost, type MediaHost } from '../kit/providers/media-host.js';
import { deletePrefix, SHARED_REDIS, uniquePrefix } from '../store/support/redis.js';
import { baseConfig, writeProject } from './project.js';

const run = promisify(execFile);
const KEY = 'test-key-reload-resources';
const ENV = { GATEWAY_API_KEYS: KEY };

async function serve(configPath: string): Promise<RunningGateway> {
  const { runtime, diagnostics } = compile(loadProject(configPath, ENV), ENV);
  if (!runtime) throw new Error(diagnostics.map((d) => d.message).join('\n'));
  return startGateway(runtime, { host: '127.0.0.1', port: 0, logger: createLogger('silent') });
}

/** The fleet hash of a config file as it is now. */
function hashOf(configPath: string): string {
  const { runtime } = compile(loadProject(configPath, ENV), ENV);
  return computeConfigHash(runtime!.config, runtime!.routes.map((r) => r.spec));
}

/** Polls `check` until it holds or 10 s pass; returns whether it held. */
async function eventually(check: () => boolean | Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe('config reload: the fleet hash and the media fetch pool', () => {
  let gw: RunningGateway | undefined;
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  it('publishes the reloaded config\'s hash: /readyz, the heartbeat in the store and `gateway status`', async function () {
    this.timeout(30_000);
    const prefix = uniquePrefix('reload-hash');
    const file = writeStoreProject({ store: { url: `${SHARED_REDIS}?prefix=${encodeURIComponent(prefix)}`, on_error: 'open' }, discoveryRequests: 100 });
    const conn = connectRedis(`${SHARED_REDIS}?prefix=${encodeURIComponent(prefix)}`);
    try {
      gw = await serve(file);
      const before = hashOf(file);
      const readyHash = async () => ((await (await fetch(`${gw!.url}/readyz`)).json()) as { config_hash: string }).config_hash;
      expect(await readyHash()).to.equal(before);
      const doc = parse(readFileSync(file, 'utf8')) as { limits: { anonymous_discovery: { requests: number } } };
      doc.limits.anonymous_discovery.requests = 7;
      writeFileSync(file, stringify(doc));
      const after = hashOf(file);
      expect(after).to.not.equal(before);
      expect(reloadGateway(file, gw, ENV).applied).to.equal(true);
      expect(await readyHash()).to.equal(after);
      const published = async () => (await readFleet(conn)).map((m) => m.config_hash);
      expect(await eventually(async () => (await published()).includes(after)), 'the heartbeat carries the new hash').to.equal(true);
      const cli = resolve(process.cwd(), 'dist/src/cli/main.js');
      const status = await run(process.execPath, [cli, 'status', '--config', file, '--format', 'json'], { env: { ...process.env, ...ENV } }).then(
        (r) => ({ code: 0, stdout: r.stdout }),
        (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
      );
      const shown = JSON.parse(status.stdout) as { config_hash: string; instances: Array<{ config_hash: string; same_config: boolean }> };
      expect({ code: status.code, hashes: shown.instances.map((i) => i.config_hash) }).to.deep.equal({ code: 0, hashes: [after] });
    } finally {
      await gw?.close();
      gw = undefined;
      await conn.close();
      await deletePrefix(SHARED_REDIS, prefix);
    }
  });

  it('closes the replaced pipeline\'s media fetch pool once the requests that started on it have ended', async () => {
    const media: MediaHost = await startMediaHost({ '/image.png': () => ({ status: 200, headers: { 'content-type': 'image/png' }, body: makePng() }) });
    const open = new Set<Socket>();
    media.server.on('connection', (socket: Socket) => {
      open.add(socket);
      socket.once('close', () => open.delete(socket));
    });
    try {
      const models = '  - id: sandbox/image-1\n    provider: sandbox\n    endpoints: [/v1/images/edits]\n';
      const dir = writeProject({ 'gateway.yaml': baseConfig({ port: 0, models, extra: 'limits:\n  fetch: { allow_private: true, max_bytes: 100000, timeout_ms: 5000 }\n' }) });
      const configPath = join(dir, 'gateway.yaml');
      gw = await serve(configPath);
      const body = JSON.stringify({ model: 'sandbox/image-1', prompt: 'a hat', image: `${media.url}/image.png` });
      const edit = () => fetch(`${gw!.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body }).then((r) => r.status);

      // A request on the first pipeline, its body half sent: it fetches only once the body is in.
      const url = new URL(`${gw.url}/v1/images/edits`);
      const slow = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } });
      const slowStatus = new Promise<number>((resolve, reject) => {
        slow.once('response', (res) => { res.resume(); res.once('end', () => resolve(res.statusCode ?? 0)); });
        slow.once('error', reject);
      });
      slow.write(body.slice(0, 10));
      expect(await eventually(() => gw!.lifecycle.inFlight.size === 1), 'the request is in flight').to.equal(true);

      writeFileSync(configPath, readFileSync(configPath, 'utf8').replace('max_bytes: 100000', 'max_bytes: 90000'));
      expect(reloadGateway(configPath, gw, ENV).applied).to.equal(true);
      // The new pipeline fetches with its own pool.
      expect(await edit()).to.equal(200);
      expect(open.size).to.equal(1);
      // The old pipeline's request fetches now, through the old pool, which is still open.
      slow.end(body.slice(10));
      expect(await slowStatus).to.equal(200);
      // Its request over, the old pool closes its connection; the new pool keeps its own.
      expect(await eventually(() => open.size === 1), `connections to the media host: ${open.size}`).to.equal(true);
      expect(media.requests).to.have.length(2);
    } finally {
      await media.close();
    }
  });
});
