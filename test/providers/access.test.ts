import { expect } from 'chai';
import type { ProviderSpec } from '../../src/config/types.js';
import { resolveDeployment } from '../../src/providers/access.js';
import type { OperationCall } from '../../src/providers/types.js';

const call = (over: Partial<OperationCall>): OperationCall => ({ model: { id: 'p/m', provider: 'p', endpoints: [] }, ...over } as OperationCall);

describe('providers/access resolveDeployment', () => {
  it('keeps the api_key_env short form: the key goes in the dialect header, no authorizer', () => {
    const d = resolveDeployment('openai', { type: 'openai-chat', base_url: 'https://api.openai.com/v1' }, undefined, { OPENAI_API_KEY: 'sk-1' }, true);
    expect([d.apiKey, d.baseUrl, d.access, d.missing]).to.deep.equal(['sk-1', 'https://api.openai.com/v1', undefined, undefined]);
    expect(resolveDeployment('openai', { type: 'openai-chat', base_url: 'https://x' }, undefined, {}, true).missing).to.equal('OPENAI_API_KEY');
  });

  it('sends an api_key with header and prefix in place of the dialect header', () => {
    const spec: ProviderSpec = { type: 'anthropic-messages', base_url: 'https://x', auth: { type: 'api_key', api_key_env: 'K', header: 'Authorization', prefix: 'Token ' } };
    const d = resolveDeployment('acme', spec, undefined, { K: 'secret-123456' }, true);
    const headers = { 'x-api-key': 'secret-123456', 'anthropic-version': '2023-06-01' };
    void d.access!.authorizer!.authorize({ method: 'POST', url: 'https://x/v1/messages', headers });
    expect(headers).to.deep.equal({ 'anthropic-version': '2023-06-01', authorization: 'Token secret-123456' });
  });

  it('aims Vertex at the location host, the global host without a region prefix, and reshapes Gemini and Claude requests', () => {
    const env = { GOOGLE_APPLICATION_CREDENTIALS: new URL(import.meta.url).pathname };
    const gemini: ProviderSpec = { type: 'gemini', platform: 'vertex', project: 'proj', location: 'europe-west4', auth: { type: 'google' } };
    const regional = resolveDeployment('vertex', gemini, undefined, env, true);
    expect(regional.baseUrl).to.equal('https://europe-west4-aiplatform.googleapis.com');
    const shaped = regional.access!.shape!({ path: '/v1beta/models/gemini-x:streamGenerateContent?alt=sse', body: {} }, call({}));
    expect(shaped.path).to.equal('/v1/projects/proj/locations/europe-west4/publishers/google/models/gemini-x:streamGenerateContent?alt=sse');
    const global = resolveDeployment('vertex', { ...gemini, location: 'global' }, undefined, env, true);
    expect(global.baseUrl).to.equal('https://aiplatform.googleapis.com');
    const claude = resolveDeployment('vc', { ...gemini, type: 'anthropic-messages', location: 'us-east5' }, { name: 'eu', location: 'europe-west1' }, env, true);
    expect(claude.baseUrl, 'a deployment location wins').to.equal('https://europe-west1-aiplatform.googleapis.com');
    const msg = claude.access!.shape!({ path: '/v1/messages', body: { model: 'claude-x@20260101', stream: true, max_tokens: 5 } }, call({ model: { id: 'vc/c', provider: 'vc', upstream: 'claude-x@20260101', endpoints: [] } }));
    expect(msg).to.deep.equal({ path: '/v1/projects/proj/locations/europe-west1/publishers/anthropic/models/claude-x@20260101:streamRawPredict', body: { anthropic_version: 'vertex-2023-10-16', stream: true, max_tokens: 5 } });
  });

  it('says what a cloud provider lacks: project, credentials, endpoint', () => {
    const vertex: ProviderSpec = { type: 'gemini', platform: 'vertex', project: '', auth: { type: 'google', credentials_file_env: 'SA_FILE' } };
    expect(resolveDeployment('vertex', vertex, undefined, { HOME: '/nonexistent', SA_FILE: new URL(import.meta.url).pathname }, true).missing).to.match(/^providers\.vertex\.project/);
    expect(resolveDeployment('vertex', { ...vertex, project: 'p' }, undefined, { HOME: '/nonexistent', SA_FILE: '/nope.json' }, true).missing).to.equal('SA_FILE to a readable credentials file (/nope.json does not exist)');
    const azure: ProviderSpec = { type: 'openai-chat', platform: 'azure', base_url_env: 'AZ_URL', auth: { type: 'azure', api_key_env: 'AZ_KEY' } };
    expect(resolveDeployment('azure', azure, undefined, { HOME: '/nonexistent', AZ_KEY: 'k-123456' }, true).missing).to.equal('AZ_URL');
    expect(resolveDeployment('azure', azure, undefined, { HOME: '/nonexistent', AZ_URL: 'https://r.openai.azure.com' }, true).missing).to.match(/^AZ_KEY or Entra ID credentials/);
    const managed = resolveDeployment('azure', azure, undefined, { HOME: '/nonexistent', AZ_URL: 'https://r.openai.azure.com', IDENTITY_ENDPOINT: 'http://169.254.169.254' }, true);
    expect(managed.missing).to.equal(undefined);
    expect(managed.access!.authorizer!.source).to.equal('Azure managed identity');
  });

  it('puts Azure requests under /openai/v1 unless the endpoint already ends there', () => {
    const azure: ProviderSpec = { type: 'openai-chat', platform: 'azure', base_url_env: 'AZ_URL', auth: { type: 'azure', api_key_env: 'AZ_KEY' } };
    const d = resolveDeployment('azure', azure, undefined, { AZ_URL: 'https://r.openai.azure.com', AZ_KEY: 'k-123456' }, true);
    expect(d.access!.shape!({ path: '/chat/completions', body: {} }, call({ baseUrl: 'https://r.openai.azure.com' })).path).to.equal('/openai/v1/chat/completions');
    expect(d.access!.shape!({ path: '/chat/completions', body: {} }, call({ baseUrl: 'https://r.openai.azure.com/openai/v1/' })).path).to.equal('/chat/completions');
    const headers: Record<string, string> = { authorization: 'Bearer k-123456' };
    void d.access!.authorizer!.authorize({ method: 'POST', url: 'u', headers });
    expect(headers).to.deep.equal({ 'api-key': 'k-123456' });
  });
});
