import { expect } from 'chai';
import { compileProxyPlan, ProxyPlanError } from '../../src/compile/proxy-plan.js';
import type { ResolvedProvider } from '../../src/compile/runtime.js';
import { checkProxyRoutes } from '../../src/config/proxy-checks.js';
import type { LoadedProject } from '../../src/config/load-project.js';
import type { GatewayConfig, ProviderSpec, RouteSpec } from '../../src/config/types.js';
import { LineCounter, parseDocument } from 'yaml';
import { authTypeOf, credentialTypes, registerCredentialType } from '../../src/providers/request-credentials.js';

const route: RouteSpec = {
  file: 'routes/pt.yaml', method: 'POST', path: '/pt/{*rest}', auth: 'key', envelope: 'default', content_types: [], handler: 'proxy', operation: 'proxy',
  proxy: { provider: 'cloudy', strip_prefix: '/pt', charge_usd: '0.25' },
};
const config = { routing: { timeouts: { first_byte_ms: 1234 } }, server: {} } as unknown as GatewayConfig;

function provider(spec: ProviderSpec, apiKey?: string): ReadonlyMap<string, ResolvedProvider> {
  return new Map([['cloudy', { name: 'cloudy', spec, apiKey, baseUrl: spec.base_url, upstreams: [], impl: { type: spec.type } } as unknown as ResolvedProvider]]);
}

/** A route file's source as the loader keeps it (for diagnostics' line numbers). */
function yamlSource(file: string, text: string): unknown {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  return { file, doc, lines, data: doc.toJS(), substituted: new Map() };
}

describe('compile/proxy-plan: credentials for a forwarded request', () => {
  it("uses the provider type's own key headers and the origin of its base URL", async () => {
    const plan = compileProxyPlan({ ...route, proxy: { ...route.proxy!, provider: 'cloudy' } }, provider({ type: 'anthropic-messages', base_url: 'https://api.example.test/anthropic' }, 'k-1'), config);
    expect(plan.origin).to.equal('https://api.example.test');
    expect(plan.basePath).to.equal('');
    expect(plan.chargeUsd).to.equal(0.25);
    expect(plan.timeouts.firstByteMs).to.equal(1234);
    const headers = await plan.credentials({ method: 'POST', url: new URL('https://api.example.test/v1/messages'), headers: {} });
    expect(headers).to.deep.equal({ 'x-api-key': 'k-1' });
    // The version is a default the client may override (a new beta), not a credential.
    expect(plan.headers).to.have.property('anthropic-version');
    expect(JSON.stringify(plan.headers)).not.to.include('k-1');
  });

  it('refuses, clearly, a provider whose auth type has no credential source yet, until one is registered', () => {
    const spec = { type: 'openai-chat', base_url: 'https://bedrock.example.test', auth: { type: 'aws-test-only' } } as unknown as ProviderSpec;
    expect(authTypeOf(spec)).to.equal('aws-test-only');
    expect(() => compileProxyPlan(route, provider(spec), config)).to.throw(ProxyPlanError, /auth type 'aws-test-only'/);
    const project = { config: { providers: { cloudy: spec } }, routes: [route], sources: new Map([[route.file, yamlSource(route.file, 'proxy:\n  provider: cloudy\n')]]) } as unknown as LoadedProject;
    const found = checkProxyRoutes(project, credentialTypes()).map((d) => d.code);
    expect(found).to.include('E_PROXY_AUTH');
    // A cloud auth module plugs in: the same route then compiles and signs each request.
    registerCredentialType('aws-test-only', () => (request) => ({ authorization: `SIGNED ${request.method} ${request.url.pathname}` }));
    const plan = compileProxyPlan(route, provider(spec), config);
    expect(plan.credentials({ method: 'POST', url: new URL('https://bedrock.example.test/v1/x'), headers: {} })).to.deep.equal({ authorization: 'SIGNED POST /v1/x' });
    expect(checkProxyRoutes(project, credentialTypes()).map((d) => d.code)).not.to.include('E_PROXY_AUTH');
  });
});
