import { expect } from 'chai';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ERROR_CATALOG, findCatalogEntry } from '../../src/errors/catalog.js';
import { GatewayError, errors } from '../../src/errors/gateway-error.js';
import { TABLE_END, TABLE_START, renderErrorTable, replaceErrorTable } from '../../src/errors/readme-table.js';

const ROOT = process.cwd();

/** Every .ts file under a folder. */
function sourcesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourcesOf(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The generated section of the README. */
function readmeSection(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  expect(start, 'README has the generated error-code section').to.be.greaterThan(-1);
  return readme.slice(start + TABLE_START.length, end).trim();
}

describe('errors/catalog', () => {
  describe('README "Error codes"', () => {
    it('is the table rendered from the catalog (UPDATE_README=1 rewrites it)', () => {
      const path = resolve(ROOT, 'README.md');
      let readme = readFileSync(path, 'utf8');
      if (process.env.UPDATE_README === '1') {
        readme = replaceErrorTable(readme);
        writeFileSync(path, readme);
      }
      expect(readmeSection(readme)).to.equal(renderErrorTable());
    });
    it('lists every catalog code, and every code it lists is in the catalog', () => {
      const section = readmeSection(readFileSync(resolve(ROOT, 'README.md'), 'utf8'));
      const listed = new Set<string>([...section.matchAll(/^\| (?:\d{3}|4xx) \|[^|]*\| `([^`]+)` \|/gm)].map((m) => m[1]!));
      const catalog = new Set<string>(ERROR_CATALOG.map((e) => e.code));
      expect([...catalog].filter((c) => !listed.has(c)), 'catalog codes missing from the README').to.deep.equal([]);
      expect([...listed].filter((c) => !catalog.has(c)), 'README codes not in the catalog').to.deep.equal([]);
    });
  });

  describe('src/', () => {
    it('constructs every GatewayError with a status, type and code that is a catalog row', () => {
      const found: string[] = [];
      let scanned = 0;
      for (const file of sourcesOf(resolve(ROOT, 'src'))) {
        const text = readFileSync(file, 'utf8');
        for (const m of text.matchAll(/new GatewayError\(\s*(\d{3}),\s*'([a-z_]+)',\s*'([a-z_]+)'/g)) {
          scanned += 1;
          const [, status, type, code] = m;
          const row = findCatalogEntry(code!, Number(status));
          if (!row || row.status !== Number(status) || row.type !== type) found.push(`${file.slice(ROOT.length + 1)}: ${status} ${type} ${code}`);
        }
      }
      expect(scanned, 'literal constructions found (billing, store, realtime ...)').to.be.greaterThan(4);
      expect(found, 'GatewayErrors that disagree with the catalog').to.deep.equal([]);
    });
    it('has builders whose errors agree with the catalog', () => {
      const built: GatewayError[] = [
        errors.malformedJson('x'), errors.validation('x', []), errors.invalidRequest('x'), errors.unknownModel('m'),
        errors.unsupportedOperation('m', 'o'), errors.providerNotConfigured('p', 'V'), errors.unsupportedMediaType('t', ['a']),
        errors.missingKey(), errors.invalidKey(), errors.forbidden('x'), errors.routeNotFound('GET', '/'), errors.modelNotFound('m'),
        errors.notFound('x'), errors.methodNotAllowed('GET', '/', 'POST'), errors.bodyTooLarge(1), errors.rateLimited(1),
        errors.upstreamUnreachable('p'), errors.upstreamTimeout('p', 1), errors.invalidUpstreamResponse('p', 'x'),
        errors.streamTruncated('p'), errors.nestingTooDeep(1), errors.internal(),
      ];
      for (const e of built) {
        const row = findCatalogEntry(e.code!, e.status);
        expect(row, `${e.code}`).to.not.equal(undefined);
        expect([row!.status, row!.type], `${e.code}`).to.deep.equal([e.status, e.type]);
      }
    });
    it('no longer spells upstream_bad_response anywhere', () => {
      const hits = sourcesOf(resolve(ROOT, 'src')).filter((f) => readFileSync(f, 'utf8').includes('upstream_bad_response'));
      expect(hits).to.deep.equal([]);
    });
  });
});
