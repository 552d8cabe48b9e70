import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect } from 'chai';
import { makeTempDir } from '../helpers/temp-dir.js';
import { compile } from '../../src/compile/compile.js';
import { matchKey } from '../../src/compile/keys.js';
import { formatDiagnostic } from '../../src/config/diagnostics.js';
import { substituteScalar, withFileSecrets } from '../../src/config/env.js';
import { loadProject } from '../../src/config/load-project.js';

const ROUTES = resolve(process.cwd(), 'test/fixtures/configs/_routes');

/** Writes a gateway.yaml (and other files) into a temp folder; returns the config path. */
function project(yaml: string, files: Record<string, string> = {}): { dir: string; config: string } {
  const dir = makeTempDir('gw-config-');
  writeFileSync(join(dir, 'gateway.yaml'), `routes: ${ROUTES}\n${yaml}`);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return { dir, config: join(dir, 'gateway.yaml') };
}

const MODELS = `providers:
  sandbox:
    type: sandbox
models:
  - id: sandbox/echo-1
    provider: sandbox
    endpoints: [/v1/chat/completions]
`;

describe('config loading: secrets, types and aliases', () => {
  describe('whole-scalar ${VAR}', () => {
    it('keeps a digits-only secret a string with its leading zeros where the schema says string', () => {
      const { config } = project(`server:\n  port: \${PORT}\n  trust_proxy: \${TRUST}\n  shutdown_grace_s: \${GRACE}\nrealtime:\n  secret: \${SECRET}\n${MODELS}`);
      const loaded = loadProject(config, { PORT: '9001', TRUST: 'true', GRACE: '2.5', SECRET: '000123' });
      expect(loaded.diagnostics.map(formatDiagnostic)).to.deep.equal([]);
      expect(loaded.config!.realtime.secret).to.equal('000123');
      expect(loaded.config!.server.port).to.equal(9001);
      expect(loaded.config!.server.trust_proxy).to.equal(true);
      expect(loaded.config!.server.shutdown_grace_s).to.equal(2.5);
    });

    it('keeps a substituted price the decimal string it was', () => {
      const { config } = project(`${MODELS}    pricing:\n      prompt: \${PRICE}\n      completion: "0.000002"\n`);
      const loaded = loadProject(config, { PRICE: '0.0000010' });
      expect(loaded.diagnostics.map(formatDiagnostic)).to.deep.equal([]);
      expect(loaded.config!.models[0]!.pricing!.prompt).to.equal('0.0000010');
    });

    it('writes $${...} as a literal', () => {
      expect(substituteScalar('pre $${HOME} post', { HOME: '/root' }).value).to.equal('pre ${HOME} post');
    });
  });

  describe('${file:...}', () => {
    it('reads a file (relative to the YAML file) without its trailing newline, anywhere in a value', () => {
      const { config } = project(`realtime:\n  secret: \${file:secret.txt}\nserver:\n  public_url: "https://\${file:host.txt}/gw"\n${MODELS}`, { 'secret.txt': '0042\n', 'host.txt': 'gw.example.com\n' });
      const loaded = loadProject(config, {});
      expect(loaded.diagnostics.map(formatDiagnostic)).to.deep.equal([]);
      expect(loaded.config!.realtime.secret).to.equal('0042');
      expect(loaded.config!.server.public_url).to.equal('https://gw.example.com/gw');
    });

    it('reports an unreadable file at its line and column', () => {
      const { config } = project(`realtime:\n  secret: \${file:/nonexistent/secret}\n${MODELS}`);
      const findings = loadProject(config, {}).diagnostics.map(formatDiagnostic);
      expect(findings).to.have.length(1);
      expect(findings[0]).to.match(/gateway\.yaml:3:11 W_SECRET_FILE cannot read secret file \/nonexistent\/secret \(ENOENT\)/);
    });
  });

  describe('<VAR>_FILE', () => {
    it('stands in for every variable the config reads: ${VAR}, gateway keys and provider keys', () => {
      const { dir, config } = project(`realtime:\n  secret: \${REALTIME_SECRET}\nproviders:\n  sandbox:\n    type: sandbox\n  openai:\n    type: openai-chat\n    base_url: https://api.openai.com/v1\nmodels:\n  - id: sandbox/echo-1\n    provider: sandbox\n    endpoints: [/v1/chat/completions]\n`, {
        'realtime': 'rt-secret\n', 'keys': 'key-a,key-b\n', 'openai': 'sk-from-file\n',
      });
      const env = { REALTIME_SECRET_FILE: join(dir, 'realtime'), GATEWAY_API_KEYS_FILE: join(dir, 'keys'), OPENAI_API_KEY_FILE: join(dir, 'openai') };
      const { runtime, diagnostics } = compile(loadProject(config, env), env);
      expect(diagnostics.map(formatDiagnostic)).to.deep.equal([]);
      expect(runtime!.config.realtime.secret).to.equal('rt-secret');
      expect(matchKey(runtime!.keys, 'key-b')).to.not.equal(undefined);
      expect(runtime!.generatedKey).to.equal(undefined);
      expect(runtime!.providers.get('openai')!.apiKey).to.equal('sk-from-file');
      expect(runtime!.providers.get('openai')!.missing).to.equal(undefined);
    });

    it('lets a set variable win over its _FILE and reports an unreadable _FILE', () => {
      const env = withFileSecrets({ A: 'direct', A_FILE: '/nonexistent/a', B_FILE: '/nonexistent/b' });
      expect(env.A).to.equal('direct');
      expect(env.B).to.equal(undefined);
      const { config } = project(MODELS);
      const { diagnostics } = compile(loadProject(config, {}), { GATEWAY_API_KEYS_FILE: '/nonexistent/keys' });
      expect(diagnostics.map(formatDiagnostic)).to.deep.equal(['gateway.yaml:1:1 W_SECRET_FILE GATEWAY_API_KEYS_FILE: cannot read /nonexistent/keys (ENOENT)'.replace('gateway.yaml', diagnostics[0]?.file ?? '')]);
    });
  });

  describe('YAML aliases', () => {
    it('resolves `pricing: *p1` so the model is priced, and merge keys', () => {
      const { config } = project(`x-shared:
  prices: &p1 { prompt: "0.000001", completion: "0.000002" }
  model: &base
    provider: sandbox
    endpoints: [/v1/chat/completions]
providers:
  sandbox:
    type: sandbox
models:
  - id: sandbox/echo-1
    <<: *base
    pricing: *p1
  - <<: *base
    id: sandbox/echo-2
    endpoints: [/v1/chat/completions, /v1/embeddings]
`);
      const { runtime, diagnostics } = compile(loadProject(config, {}), {});
      expect(diagnostics.map(formatDiagnostic)).to.deep.equal([]);
      const priced = runtime!.models.get('sandbox/echo-1')!;
      expect(priced.spec.pricing).to.deep.equal({ prompt: '0.000001', completion: '0.000002' });
      expect(priced.provider.name).to.equal('sandbox');
      expect([...runtime!.models.get('sandbox/echo-2')!.spec.endpoints]).to.deep.equal(['/v1/chat/completions', '/v1/embeddings']);
    });
  });
});
