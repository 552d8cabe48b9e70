import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { compile } from '../../src/compile/compile.js';
import { formatDiagnostic } from '../../src/config/diagnostics.js';
import { loadProject } from '../../src/config/load-project.js';

const fixturesDir = resolve(process.cwd(), 'test/mapping/fixtures');

/** Findings of a fixture, file paths relative to the fixture folder. */
function findingsOf(dir: string): string[] {
  const { diagnostics } = compile(loadProject(join(dir, 'gateway.yaml'), {}), {});
  return diagnostics.map((d) => formatDiagnostic({ ...d, file: relative(dir, resolve(process.cwd(), d.file)) })).sort();
}

describe('mapping/lint (gateway lint on operation mappings)', () => {
  for (const name of readdirSync(fixturesDir).filter((d) => d.startsWith('invalid-'))) {
    it(`reports exactly the expected findings for ${name}`, () => {
      const dir = join(fixturesDir, name);
      const expected = readFileSync(join(dir, 'expected.txt'), 'utf8').split('\n').filter(Boolean).sort();
      expect(findingsOf(dir)).to.deep.equal(expected);
    });
  }

  it('finds nothing wrong in a provider added in YAML alone', () => {
    expect(findingsOf(join(fixturesDir, 'openai-compatible'))).to.deep.equal([]);
  });

  describe('the repository gateway.yaml', () => {
    const project = loadProject(resolve(process.cwd(), 'gateway.yaml'), {});
    const { diagnostics, runtime } = compile(project, { OPENAI_API_KEY: 'x', GEMINI_API_KEY: 'x', COHERE_API_KEY: 'x', VOYAGE_API_KEY: 'x', JINA_API_KEY: 'x', MISTRAL_API_KEY: 'x', ELEVENLABS_API_KEY: 'x' });

    it('serves every endpoint of every model (no E_PROVIDER_LACKS_OPERATION, no mapping error)', () => {
      expect(diagnostics.filter((d) => d.severity === 'error').map(formatDiagnostic)).to.deep.equal([]);
    });

    it('gives every catalog model an implementation of each of its operations', () => {
      const missing: string[] = [];
      for (const [id, entry] of runtime!.models) {
        for (const operation of entry.operations) {
          const route = runtime!.routes.find((r) => r.spec.operation === operation && r.spec.method === 'POST');
          if (route?.spec.surface) continue; // text routes go through codecs
          if (!entry.provider.impl.operations?.[operation]) missing.push(`${id} ${operation}`);
        }
      }
      expect(missing).to.deep.equal([]);
    });

    it('adds the poll operation of every async job and a relay for realtime providers', () => {
      const google = runtime!.providers.get('google')!.impl;
      expect(google.operations).to.have.property('video.generations.poll');
      expect(runtime!.providers.get('openai')!.impl.openRealtime).to.be.a('function');
    });
  });
});
