import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { parseDocument } from 'yaml';
import { makeTempDir } from '../helpers/temp-dir.js';

const root = process.cwd();

describe('production install files', () => {
  describe('package.json', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string>; files: string[]; bin: Record<string, string> };

    it('starts without compiling and tests after building', () => {
      expect(pkg.scripts.prestart).to.equal(undefined);
      expect(pkg.scripts.start).to.not.match(/tsc|build/);
      expect(pkg.scripts.pretest).to.match(/build/);
      expect(pkg.bin.gateway).to.equal('bin/gateway.js');
    });

    it('ships what start needs in the package', () => {
      for (const f of ['bin/', 'dist/src/', 'schemas/', 'routes/', 'gateway.yaml', 'scripts/prepare.js']) expect(pkg.files).to.include(f);
    });
  });

  describe('precompiled meta-schemas (npm run build)', () => {
    it('leaves standalone meta-schema validators matching schemas/ in dist (lint does not compile them)', async () => {
      for (const name of ['gateway', 'route', 'mapping']) {
        const text = readFileSync(join(root, 'schemas', `${name}.schema.json`), 'utf8');
        const mod = createRequire(import.meta.url)(join(root, `dist/schemas/${name}.validate.cjs`)) as ((data: unknown) => boolean) & { schemaHash: string };
        expect(mod.schemaHash).to.equal(createHash('sha256').update(text).digest('hex'));
        expect(mod({ method: 'GET' })).to.equal(false);
      }
      const { metaSchema } = await import('../../src/config/meta-schema.js');
      expect(metaSchema('route')).to.equal(createRequire(import.meta.url)(join(root, 'dist/schemas/route.validate.cjs')));
    });
  });

  describe('scripts/prepare.js', () => {
    it('skips the build without TypeScript (npm ci --omit=dev) and links node_modules/.bin/gateway', () => {
      const dir = makeTempDir('gw-prepare-');
      cpSync(join(root, 'package.json'), join(dir, 'package.json'));
      cpSync(join(root, 'scripts'), join(dir, 'scripts'), { recursive: true });
      mkdirSync(join(dir, 'node_modules'));
      const run = spawnSync(process.execPath, ['scripts/prepare.js'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
      expect(run.status, run.stderr).to.equal(0);
      expect(run.stdout).to.include('TypeScript is not installed');
      expect(existsSync(join(dir, 'dist'))).to.equal(false);
      const link = join(dir, 'node_modules/.bin/gateway');
      expect(lstatSync(link).isSymbolicLink()).to.equal(true);
      expect(readlinkSync(link)).to.equal('../../bin/gateway.js');
    });

    it('does nothing when npx runs the project bin (npm_command=exec)', () => {
      const dir = makeTempDir('gw-prepare-');
      cpSync(join(root, 'package.json'), join(dir, 'package.json'));
      cpSync(join(root, 'scripts'), join(dir, 'scripts'), { recursive: true });
      mkdirSync(join(dir, 'node_modules'));
      const run = spawnSync(process.execPath, ['scripts/prepare.js'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', npm_command: 'exec' } });
      expect(run.status).to.equal(0);
      expect(run.stdout).to.equal('');
      expect(existsSync(join(dir, 'node_modules/.bin/gateway'))).to.equal(false);
    });
  });

  describe('Dockerfile', () => {
    const text = readFileSync(join(root, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
    const lines = text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
    const stages = lines.filter((l) => /^FROM /i.test(l));
    const runtimeStage = lines.slice(lines.lastIndexOf(stages[stages.length - 1]!));

    it('builds in one stage and runs the production install in another, as a non-root user', () => {
      expect(stages.length).to.be.at.least(2);
      expect(lines.some((l) => /^RUN npm run build/.test(l))).to.equal(true);
      expect(runtimeStage.some((l) => /^RUN npm ci --omit=dev/.test(l))).to.equal(true);
      expect(runtimeStage.some((l) => /^COPY --from=build \/app\/dist\/src/.test(l))).to.equal(true);
      const user = runtimeStage.filter((l) => /^USER /.test(l)).pop();
      expect(user).to.match(/^USER (?!root\b|0\b)\S+/);
      expect(runtimeStage.find((l) => /^CMD /.test(l))).to.include('bin/gateway.js');
    });

    it('checks health on /readyz', () => {
      expect(runtimeStage.find((l) => /^HEALTHCHECK /.test(l))).to.include('/readyz');
    });

    it('copies only paths that exist in the repository', () => {
      for (const l of lines.filter((x) => /^COPY (?!--from)/.test(x))) {
        const parts = l.split(/\s+/).slice(1, -1);
        for (const src of parts) if (src !== '.') expect(existsSync(resolve(root, src)), `${src} (${l})`).to.equal(true);
      }
    });
  });

  describe('compose.yaml', () => {
    const doc = parseDocument(readFileSync(join(root, 'compose.yaml'), 'utf8'));
    const compose = doc.toJS() as {
      services: Record<string, { environment?: Record<string, string>; secrets?: string[]; depends_on?: Record<string, { condition: string }>; stop_grace_period?: string; healthcheck?: unknown; build?: string }>;
      secrets: Record<string, { file: string }>;
    };

    it('parses as YAML', () => expect(doc.errors).to.deep.equal([]));

    it('runs the gateway with PostgreSQL and Redis, waiting for them to be healthy', () => {
      expect(Object.keys(compose.services).sort()).to.deep.equal(['gateway', 'postgres', 'redis']);
      const gw = compose.services.gateway!;
      expect(gw.build).to.equal('.');
      expect(gw.depends_on).to.deep.equal({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } });
      expect(compose.services.postgres!.healthcheck).to.not.equal(undefined);
      expect(compose.services.redis!.healthcheck).to.not.equal(undefined);
      expect(gw.environment!.GATEWAY_STORE_URL).to.equal('redis://redis:6379');
    });

    it('gives the drain more time than server.shutdown_grace_s before the container is killed', () => {
      const grace = Number(compose.services.gateway!.environment!.GATEWAY_SHUTDOWN_GRACE_S);
      expect(Number.parseInt(compose.services.gateway!.stop_grace_period!, 10)).to.be.greaterThan(grace);
    });

    it('reads every secret from a declared file through <VAR>_FILE', () => {
      for (const [name, service] of Object.entries(compose.services)) {
        for (const [key, value] of Object.entries(service.environment ?? {})) {
          if (!key.endsWith('_FILE')) continue;
          const secret = /^\/run\/secrets\/(.+)$/.exec(value)?.[1];
          expect(secret, `${name}.${key}`).to.be.a('string');
          expect(service.secrets, `${name} mounts ${secret}`).to.include(secret);
          expect(compose.secrets[secret!], `secret ${secret} is declared`).to.have.property('file');
        }
      }
    });

    it('passes the gateway only <VAR>_FILE variables that the shipped gateway.yaml reads', () => {
      // A <VAR>_FILE the config never reads is silently ignored (the ledger would stay off).
      const config = readFileSync(join(root, 'gateway.yaml'), 'utf8');
      const providers = Object.keys((parseDocument(config).toJS() as { providers: Record<string, unknown> }).providers);
      const read = (name: string): boolean =>
        config.includes(`\${${name}`) || new RegExp(`_env:\\s*${name}\\b`).test(config) ||
        providers.some((p) => `${p.toUpperCase().replace(/-/g, '_')}_API_KEY` === name);
      const fileVars = Object.keys(compose.services.gateway!.environment ?? {}).filter((k) => k.endsWith('_FILE'));
      expect(fileVars).to.include('GATEWAY_LEDGER_URL_FILE');
      for (const key of fileVars) expect(read(key.slice(0, -'_FILE'.length)), `gateway.yaml reads ${key.slice(0, -5)}`).to.equal(true);
    });
  });
});
