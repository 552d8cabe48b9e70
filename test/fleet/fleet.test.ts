import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { compile } from '../../src/compile/compile.js';
import type { GatewayConfig } from '../../src/config/types.js';
import { loadProject } from '../../src/config/load-project.js';
import { computeConfigHash } from '../../src/fleet/config-hash.js';
import { deletePrefix, SHARED_REDIS, uniquePrefix } from '../store/support/redis.js';
import { freePort } from '../helpers/free-port.js';
import { spawnGateway, type GatewayProcess } from '../e2e/budget/support/process.js';
import { newKey, writeProject } from '../e2e/budget/support/project.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const run = promisify(execFile);

function runtimeOf(file: string) {
  const { runtime } = compile(loadProject(file, {}), {});
  if (!runtime) throw new Error('fixture does not compile');
  return runtime;
}
const configOf = (file: string): GatewayConfig => runtimeOf(file).config;
const hashOf = (file: string): string => { const r = runtimeOf(file); return computeConfigHash(r.config, r.routes.map((x) => x.spec)); };

/** Rewrites a generated gateway.yaml through `edit`. */
function editProject(file: string, edit: (doc: Record<string, Record<string, unknown>>) => void): string {
  const doc = parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>>;
  edit(doc);
  writeFileSync(file, stringify(doc));
  return file;
}

describe('fleet', () => {
  describe('#computeConfigHash', () => {
    const base = configOf(writeProject({}));
    it('ignores server.host and server.port', () => {
      expect(computeConfigHash({ ...base, server: { ...base.server, host: '0.0.0.0', port: 9999 } })).to.equal(computeConfigHash(base));
    });
    it('changes with anything else, secrets included', () => {
      const h = computeConfigHash(base);
      expect(computeConfigHash({ ...base, limits: { ...base.limits, body_bytes: 1 } })).to.not.equal(h);
      const a = computeConfigHash({ ...base, realtime: { ...base.realtime, secret: 'one' } });
      expect(computeConfigHash({ ...base, realtime: { ...base.realtime, secret: 'two' } })).to.not.equal(a);
      const u = computeConfigHash({ ...base, store: { ...base.store, url: 'redis://:pw1@h:6379' } });
      expect(computeConfigHash({ ...base, store: { ...base.store, url: 'redis://:pw2@h:6379' } })).to.not.equal(u);
    });
    it('counts route files by content, not by folder', () => {
      const filesDir = join(tmpdir(), 'gw-fleet-files');
      const a = writeProject({ filesDir });
      const copy = makeTempDir('gw-routes-');
      cpSync(resolve(process.cwd(), 'routes'), copy, { recursive: true });
      const b = editProject(writeProject({ filesDir }), (doc) => { (doc as Record<string, unknown>).routes = copy; });
      expect(hashOf(b)).to.equal(hashOf(a));
      writeFileSync(join(copy, 'health.yaml'), readFileSync(join(copy, 'health.yaml'), 'utf8').replace('path: /healthz', 'path: /livez'));
      expect(hashOf(b)).to.not.equal(hashOf(a));
    });
    it('does not depend on key order', () => {
      const reordered = Object.fromEntries(Object.entries(base).reverse()) as unknown as GatewayConfig;
      expect(computeConfigHash(reordered)).to.equal(computeConfigHash(base));
    });
  });

  describe('gateway serve', () => {
    it('refuses a Redis store without realtime.secret, naming the line', async () => {
      const file = editProject(writeProject({ store: { url: SHARED_REDIS, on_error: 'open' } }), (doc) => { delete doc.realtime!.secret; });
      const cli = resolve(process.cwd(), 'dist/src/cli/main.js');
      const failure = await run(process.execPath, [cli, 'serve', '--config', file], { timeout: 15_000 }).then(() => undefined, (e: { code: number; stderr: string; stdout: string }) => e);
      expect(failure?.code).to.equal(1);
      expect(`${failure?.stderr}${failure?.stdout}`).to.match(/gateway\.yaml:\d+:\d+ E_REALTIME_SECRET_REQUIRED/);
    });
  });

  describe('two instances on one Redis (127.0.0.1:6379)', function () {
    this.timeout(60_000);
    const prefix = uniquePrefix('fleet');
    const key = newKey('fleet');
    const gateways: GatewayProcess[] = [];
    let fileA = '';
    let fileB = '';

    before(async () => {
      const store = { url: `${SHARED_REDIS}?prefix=${encodeURIComponent(prefix)}`, on_error: 'open' as const };
      const warnLevel = (doc: Record<string, Record<string, unknown>>) => { doc.server!.log_level = 'warn'; };
      const [pa, pb] = [await freePort(), await freePort()];
      fileA = editProject(writeProject({ keys: [{ key, name: 'k' }], store, port: pa }), warnLevel);
      // B differs in one limit: another contract, another hash.
      fileB = editProject(writeProject({ keys: [{ key, name: 'k' }], store, port: pb, discoveryRequests: 7 }), warnLevel);
      gateways.push(await spawnGateway(fileA, pa, key, { LOG_LEVEL: 'warn' }), await spawnGateway(fileB, pb, key, { LOG_LEVEL: 'warn' }));
    });

    after(async () => {
      await Promise.all(gateways.map((g) => g.stop()));
      await deletePrefix(SHARED_REDIS, prefix);
    });

    it('warns, naming both hashes, within 10 s of another instance serving a different config', async () => {
      const [hashA, hashB] = [hashOf(fileA), hashOf(fileB)];
      expect(hashA).to.not.equal(hashB);
      const deadline = Date.now() + 10_000;
      const warned = (g: GatewayProcess) => g.output().includes('another instance serves a different config');
      while (!(warned(gateways[0]!) && warned(gateways[1]!)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      const line = gateways[0]!.output().split('\n').find((l) => l.includes('another instance serves a different config'));
      expect(line, gateways[0]!.output()).to.be.a('string');
      expect(line).to.include(hashA).and.to.include(hashB);
      expect(warned(gateways[1]!)).to.equal(true);
    });

    it('`gateway status` lists the fleet from the store and exits 3 when configs differ', async () => {
      const cli = resolve(process.cwd(), 'dist/src/cli/main.js');
      const result = await run(process.execPath, [cli, 'status', '--config', fileA, '--format', 'json']).then(
        (r) => ({ code: 0, stdout: r.stdout }),
        (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
      );
      expect(result.code).to.equal(3);
      const status = JSON.parse(result.stdout) as { store: string; config_hash: string; instances: Array<{ config_hash: string; same_config: boolean; pid: number }> };
      expect(status.store).to.equal('redis');
      expect(status.instances).to.have.length(2);
      expect(status.instances.filter((i) => i.same_config)).to.have.length(1);
      expect(status.instances.map((i) => i.config_hash)).to.have.members([hashOf(fileA), hashOf(fileB)]);
    });
  });
});
