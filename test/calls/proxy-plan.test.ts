import { expect } from 'chai';
import { compileProxyPlan } from '../../src/compile/proxy-plan.js';
import type { ProxyPlan, ResolvedProvider } from '../../src/compile/runtime.js';
import { checkProxyRoutes } from '../../src/config/proxy-checks.js';
import type { LoadedProject } from '../../src/config/load-project.js';
import type { GatewayConfig, ProviderSpec, RouteSpec } from '../../src/config/types.js';
import { LineCounter, parseDocument } from 'yaml';
import { resolveDeployment } from '../../src/providers/access.js';

const route: RouteSpec = {
  file: 'routes/pt.yaml', method: 'POST', path: '/pt/{*rest}', auth: 'key', envelope: 'default', content_types: [], handler: 'proxy', operation: 'proxy',
  proxy: { provider: 'cloudy', strip_prefix: '/pt', charge_usd: '0.25' },
};
const config = { routing: { timeouts: { first_byte_ms: 1234 } }, server: {} } as unknown as GatewayConfig;

/** The provider as compile resolves it: credentials through the auth framework (src/providers/access.ts). */
function provider(spec: ProviderSpec, env: Record<string, string> = {}): ReadonlyMap<string, ResolvedProvider> {
  const d = resolveDeployment('cloudy', spec, undefined, env, true);
  return new Map([['cloudy', { name: 'cloudy', spec, apiKey: d.apiKey, baseUrl: d.baseUrl, access: d.access, missing: d.missing, upstreams: [], impl: { type: spec.type } } as unknown as ResolvedProvider]]);
}

/** The headers a forwarded request leaves with (the client's key already removed, as the proxy does). */
async function authorized(plan: ProxyPlan, headers: Record<string, string> = {}): Promise<Record<string, string>> {
  const req = { method: 'POST', url: `${plan.origin}/v1/x`, headers: { 'content-type': 'application/json', ...headers } };
  await plan.authorizer!.authorize(req);
  return req.headers;
}

/** A route file's source as the loader keeps it (for diagnostics' line numbers). */
function yamlSource(file: string, text: string): unknown {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  return { file, doc, lines, data: doc.toJS(), substituted: new Map() };
}

describe('compile/proxy-plan: credentials for a forwarded request', () => {
  it("uses the provider type's own key headers and the origin of its base URL", async () => {
    const plan = compileProxyPlan(route, provider({ type: 'anthropic-messages', base_url: 'https://api.example.test/anthropic', api_key_env: 'K' }, { K: 'k-1' }), config);
    expect(plan.origin).to.equal('https://api.example.test');
    expect(plan.basePath).to.equal('');
    expect(plan.chargeUsd).to.equal(0.25);
    expect(plan.timeouts.firstByteMs).to.equal(1234);
    expect(plan.missing).to.equal(undefined);
    expect(await authorized(plan)).to.deep.equal({ 'content-type': 'application/json', 'x-api-key': 'k-1' });
    // The version is a default the client may override (a new beta), not a credential.
    expect(plan.headers).to.have.property('anthropic-version');
    expect(JSON.stringify(plan.headers)).not.to.include('k-1');
  });

  it("sends an api_key provider's key in its auth.header with auth.prefix, never in the type's default header", async () => {
    const spec = { type: 'openai-chat', base_url: 'https://llm.example.test/v1', auth: { type: 'api_key', api_key_env: 'CUSTOM_KEY', header: 'Api-Key', prefix: 'Key ' } } as ProviderSpec;
    const plan = compileProxyPlan(route, provider(spec, { CUSTOM_KEY: 'ck-123' }), config);
    const headers = await authorized(plan);
    expect(headers['api-key']).to.equal('Key ck-123');
    expect(headers).not.to.have.property('authorization');
  });

  it('authorizes cloud auth types with their own credentials: azure api-key, aws SigV4 (which signs the body)', async () => {
    const azure = compileProxyPlan(route, provider({ type: 'openai-chat', platform: 'azure', base_url: 'https://res.openai.azure.test', auth: { type: 'azure', api_key_env: 'AZ' } } as ProviderSpec, { AZ: 'az-key' }), config);
    expect(await authorized(azure)).to.include({ 'api-key': 'az-key' }).and.not.to.have.property('authorization');
    expect(azure.authorizer!.signsBody).to.not.equal(true);

    const aws = compileProxyPlan({ ...route, proxy: { ...route.proxy!, max_signed_body_bytes: 2048 } }, provider({ type: 'bedrock-converse', region: 'eu-west-1', base_url: 'https://bedrock-runtime.eu-west-1.amazonaws.test', auth: { type: 'aws', access_key_id_env: 'AK', secret_access_key_env: 'SK' } } as ProviderSpec, { AK: 'AKIDPLAN', SK: 'secret-plan' }), config);
    expect(aws.authorizer!.signsBody).to.equal(true);
    expect(aws.maxSignedBodyBytes).to.equal(2048);
    const signed = await authorized(aws);
    expect(signed.authorization).to.match(/^AWS4-HMAC-SHA256 Credential=AKIDPLAN\/\d{8}\/eu-west-1\/bedrock\/aws4_request, SignedHeaders=[^,]*content-type/);
    expect(signed['x-amz-content-sha256']).to.match(/^[0-9a-f]{64}$/);
  });

  it('has no refusal for an auth type: lint raises no E_PROXY_AUTH; it warns about max_signed_body_bytes on a provider that does not sign', () => {
    const aws = { type: 'bedrock-converse', auth: { type: 'aws' } } as ProviderSpec;
    const keyed = { type: 'openai-chat', api_key_env: 'K' } as ProviderSpec;
    const signedRoute: RouteSpec = { ...route, proxy: { ...route.proxy!, allow: ['/model/*'], max_signed_body_bytes: 1024 } };
    const project = (spec: ProviderSpec) => ({
      config: { providers: { cloudy: spec } },
      routes: [signedRoute],
      sources: new Map([[route.file, yamlSource(route.file, 'proxy:\n  provider: cloudy\n  max_signed_body_bytes: 1024\n')]]),
    }) as unknown as LoadedProject;
    expect(checkProxyRoutes(project(aws)).map((d) => d.code)).to.deep.equal([]);
    const found = checkProxyRoutes(project(keyed));
    expect(found.map((d) => `${d.code} ${d.severity} ${d.line}`)).to.deep.equal(['W_PROXY_SIGNED_BODY warning 3']);
  });
});
