import { expect } from 'chai';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compile } from '../../src/compile/compile.js';
import { loadProject } from '../../src/config/load-project.js';
import { resetCacheDir } from '../../src/config/startup-cache.js';
import { computeConfigHash, rememberedConfigHash } from '../../src/fleet/config-hash.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { baseConfig, writeProject } from '../lifecycle/project.js';

/** Entries of the cache folder with this extension. */
function entries(dir: string, ext: string): string[] {
  return readdirSync(dir).filter((n) => n.endsWith(`.${ext}`));
}

describe('remembered config checks (config/remembered-checks.ts)', () => {
  const saved = process.env.GATEWAY_CACHE_DIR;
  let cacheDir: string;
  beforeEach(() => {
    cacheDir = makeTempDir('gw-remembered-');
    process.env.GATEWAY_CACHE_DIR = cacheDir;
    resetCacheDir();
  });
  afterEach(() => {
    rmSync(cacheDir, { recursive: true, force: true });
    if (saved === undefined) delete process.env.GATEWAY_CACHE_DIR; else process.env.GATEWAY_CACHE_DIR = saved;
    resetCacheDir();
  });

  const env = { GATEWAY_API_KEYS: 'k1' };

  it('remembers a clean pass, and checks a changed config again: a schema error and a broken reference are still reported', () => {
    const dir = writeProject({ 'gateway.yaml': baseConfig({ port: 0 }) });
    const file = join(dir, 'gateway.yaml');
    const first = compile(loadProject(file, env), env);
    expect(first.diagnostics).to.deep.equal([]);
    expect(entries(cacheDir, 'pass')).to.have.length(2);
    const again = compile(loadProject(file, env), env);
    expect(again.diagnostics).to.deep.equal([]);
    expect(again.runtime?.models.size).to.equal(first.runtime?.models.size);

    writeFileSync(file, baseConfig({ port: 0, extra: 'no_such_setting: 1' }));
    const schemaError = compile(loadProject(file, env), env).diagnostics;
    expect(schemaError.map((d) => d.code)).to.include('E_UNKNOWN_KEY');

    const ghost = '  - id: ghost/model-1\n    provider: ghost\n    endpoints: [/v1/chat/completions]\n    pricing: { prompt: "0.000001", completion: "0.000002" }\n';
    writeFileSync(file, baseConfig({ port: 0, models: ghost }));
    for (let load = 0; load < 2; load++) {
      const crossError = compile(loadProject(file, env), env).diagnostics;
      expect(crossError.map((d) => d.code)).to.deep.equal(['E_UNKNOWN_PROVIDER']);
    }
  });

  it('does not remember a pass that put substituted text back: a digits-only secret stays a string on every load', () => {
    const dir = writeProject({ 'gateway.yaml': baseConfig({ port: 0, extra: 'realtime:\n  secret: ${REALTIME_SECRET_X}' }) });
    const file = join(dir, 'gateway.yaml');
    const withSecret = { ...env, REALTIME_SECRET_X: '000123' };
    for (let load = 0; load < 3; load++) {
      const project = loadProject(file, withSecret);
      expect(project.diagnostics).to.deep.equal([]);
      expect(project.config?.realtime.secret).to.equal('000123');
      compile(project, withSecret);
    }
    // Only the cross-checks' pass is kept; the meta-schema check runs (and restores) every time.
    expect(entries(cacheDir, 'pass')).to.have.length(1);
  });

  it('keeps the config hash it computed, and computes it again when the kept entry is not a hash', () => {
    const dir = writeProject({ 'gateway.yaml': baseConfig({ port: 0 }) });
    const { runtime } = compile(loadProject(join(dir, 'gateway.yaml'), env), env);
    const routes = runtime!.routes.map((r) => r.spec);
    const expected = computeConfigHash(runtime!.config, routes);
    expect(rememberedConfigHash(runtime!.config, routes)).to.equal(expected);
    const [kept] = entries(cacheDir, 'hash');
    expect(kept).to.be.a('string');
    expect(rememberedConfigHash(runtime!.config, routes)).to.equal(expected);
    writeFileSync(join(cacheDir, kept!), 'not a hash');
    expect(rememberedConfigHash(runtime!.config, routes)).to.equal(expected);
  });
});
