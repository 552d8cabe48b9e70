import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { compile } from '../../src/compile/compile.js';
import { formatDiagnostic } from '../../src/config/diagnostics.js';
import { loadProject } from '../../src/config/load-project.js';

const run = promisify(execFile);
const fixturesDir = resolve(process.cwd(), 'test/fixtures/configs');
const broken = readdirSync(fixturesDir).filter((d) => d.startsWith('invalid-'));

/** Findings of a fixture with file paths relative to the fixture folder. */
function findingsOf(dir: string): string[] {
  const { diagnostics } = compile(loadProject(join(dir, 'gateway.yaml'), {}), {});
  return diagnostics
    .map((d) => formatDiagnostic({ ...d, file: relative(dir, resolve(process.cwd(), d.file)) }))
    .sort();
}

describe('gateway lint', () => {
  describe('broken fixtures', () => {
    it('has fixtures to check', () => expect(broken.length).to.be.greaterThan(3));
    for (const name of broken) {
      it(`reports exactly the expected findings for ${name}`, () => {
        const dir = join(fixturesDir, name);
        const expected = readFileSync(join(dir, 'expected.txt'), 'utf8').split('\n').filter(Boolean).sort();
        expect(findingsOf(dir)).to.deep.equal(expected);
      });
    }
  });

  describe('the repository config', () => {
    it('has no errors', () => {
      const { diagnostics } = compile(loadProject(resolve(process.cwd(), 'gateway.yaml'), {}), {});
      expect(diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).to.deep.equal([]);
    });
  });

  describe('CLI', () => {
    const cli = resolve(process.cwd(), 'dist/src/cli/main.js');
    // `npm test` builds first (pretest), so the compiled CLI is there.
    before(() => expect(existsSync(cli), 'run `npm run build` first').to.equal(true));

    it('exits 1 and prints file:line:col findings for a broken config', async () => {
      const target = join(fixturesDir, 'invalid-references', 'gateway.yaml');
      const err = await run(process.execPath, [cli, 'lint', target]).then(() => undefined, (e: { code: number; stdout: string }) => e);
      expect(err, 'lint should fail').to.not.equal(undefined);
      expect(err!.code).to.equal(1);
      expect(err!.stdout).to.match(/gateway\.yaml:\d+:\d+ E_UNKNOWN_PROVIDER unknown provider 'opneai'; did you mean 'openai'\?|gateway\.yaml:\d+:\d+ E_UNKNOWN_PROVIDER/);
    });

    it('emits machine-readable findings with --format json', async () => {
      const target = join(fixturesDir, 'invalid-prices', 'gateway.yaml');
      const err = await run(process.execPath, [cli, 'lint', target, '--format', 'json']).then(() => undefined, (e: { code: number; stdout: string }) => e);
      const report = JSON.parse(err!.stdout) as { ok: boolean; diagnostics: Array<{ code: string; line: number }> };
      expect(report.ok).to.equal(false);
      expect(report.diagnostics.map((d) => d.code)).to.include('E_BAD_PRICE');
    });

    it('exits 0 on the repository config', async () => {
      const { stdout } = await run(process.execPath, [cli, 'lint', resolve(process.cwd(), 'gateway.yaml')], { env: { PATH: process.env.PATH ?? '' } });
      expect(stdout).to.match(/^ok: /m);
    });
  });
});
