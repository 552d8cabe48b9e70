import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { compile } from '../../src/compile/compile.js';
import { loadProject, type LoadedProject } from '../../src/config/load-project.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { compileOnFirstUse, compileRequestSchema, prepareInIdleTurns } from '../../src/config/request-schema.js';
import { resetCacheDir } from '../../src/config/startup-cache.js';

const fixturesDir = resolve(process.cwd(), 'test/fixtures/configs');
const configs = [
  resolve(process.cwd(), 'gateway.yaml'),
  ...readdirSync(fixturesDir).map((d) => join(fixturesDir, d, 'gateway.yaml')).filter((f) => { try { return readdirSync(join(f, '..')).includes('gateway.yaml'); } catch { return false; } }),
];

/** Everything a load gives that a start or lint uses, comparable as plain data. */
function outcome(p: LoadedProject, env: Record<string, string>) {
  const compiled = compile(p, env);
  return {
    config: p.config,
    routes: p.routes,
    diagnostics: p.diagnostics,
    sources: [...p.sources.values()].map((s) => ({ file: s.file, data: s.data, substituted: [...s.substituted].sort() })),
    compiled: compiled.diagnostics,
  };
}

describe('startup cache (config/startup-cache.ts)', () => {
  const saved = process.env.GATEWAY_CACHE_DIR;
  let dir: string;
  const use = (setting: string) => { process.env.GATEWAY_CACHE_DIR = setting; resetCacheDir(); };
  beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'gw-cache-')); });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    if (saved === undefined) delete process.env.GATEWAY_CACHE_DIR; else process.env.GATEWAY_CACHE_DIR = saved;
    resetCacheDir();
  });

  for (const file of configs) {
    it(`loads ${file.slice(process.cwd().length + 1)} from the cache exactly as from the YAML (data, substitutions, findings and their positions)`, () => {
      const env = { GATEWAY_API_KEYS: 'k1', PORT: '0123' };
      use('off');
      const parsed = outcome(loadProject(file, env), env);
      use(dir);
      const filling = outcome(loadProject(file, env), env);
      expect(readdirSync(dir).length).to.be.greaterThan(0);
      const hit = outcome(loadProject(file, env), env);
      expect(filling).to.deep.equal(parsed);
      expect(hit).to.deep.equal(parsed);
      expect(JSON.stringify(hit)).to.equal(JSON.stringify(parsed));
    });
  }

  it('reports an unset variable at its place on a cache hit too', () => {
    const project = join(dir, 'p');
    mkdirSync(join(project, 'routes'), { recursive: true });
    writeFileSync(join(project, 'gateway.yaml'), 'server:\n  host: ${NOT_SET_ANYWHERE_X}\n');
    use(join(dir, 'cache'));
    const first = loadProject(join(project, 'gateway.yaml'), {}).diagnostics.filter((d) => d.code === 'W_ENV_UNSET');
    const second = loadProject(join(project, 'gateway.yaml'), {}).diagnostics.filter((d) => d.code === 'W_ENV_UNSET');
    expect(first).to.have.length(1);
    expect(second).to.deep.equal(first);
    expect(second[0]).to.include({ line: 2, col: 9 });
  });

  it('gives validators from cached standalone code that judge like compiled ones (json and form coercion)', () => {
    const schema = () => ({
      type: 'object', required: ['n'], additionalProperties: false,
      properties: { n: { type: 'integer', minimum: 1 }, on: { type: 'boolean' }, at: { type: 'string', format: 'date-time' } },
    });
    use(dir);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(ajv);
    const fresh = ajv.compile(schema());
    compileRequestSchema(schema());
    const cached = compileRequestSchema(schema());
    expect(readdirSync(dir).some((n) => n.endsWith('.cjs'))).to.equal(true);
    for (const body of [{ n: 2 }, { n: 0 }, { n: 1, x: 1 }, { n: 1, at: 'yesterday' }, { n: 1, at: '2024-01-01T00:00:00Z' }]) {
      expect(cached(body)).to.equal(fresh(body));
      expect(cached.errors ?? null).to.deep.equal(fresh.errors ?? null);
    }
    const form = compileRequestSchema(schema(), 'form');
    const formCached = compileRequestSchema(schema(), 'form');
    const a = { n: '3', on: 'true' };
    const b = { n: '3', on: 'true' };
    expect(form(a)).to.equal(true);
    expect(formCached(b)).to.equal(true);
    expect(b).to.deep.equal({ n: 3, on: true });
  });

  it('defers a cached validator to its first call, which judges (errors included) like a compiled one, even with the entry gone by then', () => {
    const schema = () => ({ type: 'object', required: ['q'], properties: { q: { type: 'string', minLength: 2 } } });
    use(dir);
    const reference = compileRequestSchema(schema());
    expect(readdirSync(dir).some((n) => n.endsWith('.cjs'))).to.equal(true);
    const deferred = compileOnFirstUse(schema());
    const notCached = compileOnFirstUse({ type: 'object', required: ['z'] });
    expect(notCached({})).to.equal(false);
    expect(notCached.errors?.[0]?.keyword).to.equal('required');
    for (const name of readdirSync(dir)) rmSync(join(dir, name));
    for (const body of [{ q: 'ok' }, { q: 'x' }, {}, { q: 1 }]) {
      expect(deferred(body)).to.equal(reference(body));
      expect(deferred.errors ?? null).to.deep.equal(reference.errors ?? null);
    }
  });

  it('prepares deferred validators in idle turns: prepared ones no longer read the cache, unprepared ones still would', async () => {
    const schema = (field: string) => ({ type: 'object', required: [field] });
    use(dir);
    compileRequestSchema(schema('a'));
    compileRequestSchema(schema('b'));
    const prepared = compileOnFirstUse(schema('a'));
    const deferred = compileOnFirstUse(schema('b'));
    prepareInIdleTurns([prepared, undefined]);
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    // Every entry now says "accept anything": only a validator that has not loaded its code yet reads that.
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.cjs'))) writeFileSync(join(dir, name), 'module.exports = () => true;');
    expect(prepared({})).to.equal(false);
    expect(deferred({})).to.equal(true);
  });

  it('still refuses a schema that does not compile', () => {
    use(dir);
    expect(() => compileRequestSchema({ type: 'object', properties: { a: { type: 'no-such-type' } } })).to.throw();
    expect(() => compileRequestSchema({ type: 'object', properties: { a: { type: 'no-such-type' } } })).to.throw();
  });
});
