import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

interface MimeTypes {
  charset(type: string): string | false;
  contentType(type: string): string | false;
  extension(type: string): string | false;
  lookup(path: string): string | false;
  extensions: Record<string, string[]>;
  types: Record<string, string>;
  _extensionConflicts: unknown[];
}

type PluginFactory = (requireFromRoot: NodeJS.Require) => unknown;

/**
 * The CLI bundle's mime-types (scripts/precomputed-mime-types.js: its maps and charsets computed
 * at build time instead of at every start) answers exactly as the package does, for every type
 * and extension of the MIME database and for the forms Koa and its helpers pass.
 */
describe('build: mime-types with precomputed tables', function () {
  this.timeout(60_000);
  const root = resolve('.');
  const requireFromRoot = createRequire(join(root, 'package.json'));
  const real = requireFromRoot('mime-types') as MimeTypes;
  const db = createRequire(requireFromRoot.resolve('mime-types'))('mime-db') as Record<string, unknown>;
  let bundled: MimeTypes;
  let dir = '';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-mime-'));
    const { precomputedMimeTypes } = (await import(pathToFileURL(join(root, 'scripts/precomputed-mime-types.js')).href)) as { precomputedMimeTypes: PluginFactory };
    const { build } = (await import(requireFromRoot.resolve('esbuild-wasm'))) as { build(options: Record<string, unknown>): Promise<unknown> };
    const entry = join(dir, 'entry.cjs');
    writeFileSync(entry, "module.exports = require('mime-types');\n");
    const out = join(dir, 'bundle.cjs');
    await build({ entryPoints: [entry], outfile: out, bundle: true, format: 'cjs', platform: 'node', nodePaths: [join(root, 'node_modules')], logLevel: 'error', plugins: [precomputedMimeTypes(requireFromRoot)] });
    bundled = createRequire(out)(out) as MimeTypes;
  });
  after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

  it('has the package\'s extension and type maps, and no MIME database', () => {
    expect(readFileSync(join(dir, 'bundle.cjs'), 'utf8')).to.not.include('"compressible"');
    expect(Object.keys(bundled.types).length).to.equal(Object.keys(real.types).length).and.to.be.greaterThan(1000);
    expect(bundled.extensions).to.deep.equal({ ...real.extensions });
    expect(bundled.types).to.deep.equal({ ...real.types });
    expect(bundled._extensionConflicts).to.deep.equal(real._extensionConflicts);
  });

  it('answers every type of the database as the package does', () => {
    for (const type of Object.keys(db)) {
      for (const form of [type, type.toUpperCase(), `${type}; charset=latin1`, ` ${type} ;q=1`]) {
        expect(bundled.charset(form), `charset(${form})`).to.equal(real.charset(form));
        expect(bundled.contentType(form), `contentType(${form})`).to.equal(real.contentType(form));
        expect(bundled.extension(form), `extension(${form})`).to.equal(real.extension(form));
      }
    }
  });

  it('answers every extension, file name and short name as the package does', () => {
    const names = Object.keys(real.types).flatMap((ext) => [ext, `.${ext}`, `file.${ext}`, `dir/File.${ext.toUpperCase()}`]);
    for (const name of [...names, 'json', 'html', 'text', 'form', 'urlencoded', 'multipart', 'bin', '', 'no-extension', 'a.unknownext']) {
      expect(bundled.lookup(name), `lookup(${name})`).to.equal(real.lookup(name));
      expect(bundled.contentType(name), `contentType(${name})`).to.equal(real.contentType(name));
    }
  });
});
