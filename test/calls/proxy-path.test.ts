import { expect } from 'chai';
import { upstreamPathOf, type PathRules } from '../../src/calls/proxy/proxy-path.js';
import { compileModelGlobs } from '../../src/compile/keys.js';

const openai: PathRules = { stripPrefix: '/passthrough/openai', basePath: '', allow: compileModelGlobs(['/v1/batches*', '/v1/files*', '/v1/fine_tuning/*']) };

describe('calls/proxy-path: pass-through path rules', () => {
  it('strips the prefix and keeps the provider path and query (never /v1/v1)', () => {
    expect(upstreamPathOf('/passthrough/openai/v1/batches?limit=2&after=b_1', openai)).to.deep.equal({ ok: true, path: '/v1/batches?limit=2&after=b_1', providerPath: '/v1/batches' });
  });

  it('lets * match any characters including /', () => {
    expect(upstreamPathOf('/passthrough/openai/v1/batches/batch_1/cancel', openai)).to.include({ ok: true, path: '/v1/batches/batch_1/cancel' });
    expect(upstreamPathOf('/passthrough/openai/v1/fine_tuning/jobs/ft-1/events', openai)).to.include({ ok: true });
    expect(upstreamPathOf('/passthrough/openai/v1/fine_tuning', openai)).to.include({ ok: false, refusal: 'not_allowed' });
  });

  it('normalises before matching: .., %2e%2e and duplicate slashes cannot escape the list', () => {
    for (const url of [
      '/passthrough/openai/v1/batches/../chat/completions',
      '/passthrough/openai/v1/batches/%2e%2e/%2E%2e/v1/models',
      '/passthrough/openai/v1/files/.%2e/.%2E/v1/models',
    ]) expect(upstreamPathOf(url, openai), url).to.include({ ok: false, refusal: 'not_allowed' });
    expect(upstreamPathOf('/passthrough/openai/../admin', openai)).to.deep.equal({ ok: false, refusal: 'outside_prefix' });
    expect(upstreamPathOf('/passthrough/openai/%2e%2e/%2e%2e/admin', openai)).to.deep.equal({ ok: false, refusal: 'outside_prefix' });
    expect(upstreamPathOf('//passthrough//openai///v1//batches/./', openai)).to.deep.equal({ ok: true, path: '/v1/batches/', providerPath: '/v1/batches/' });
  });

  it('refuses escapes it cannot read safely', () => {
    for (const url of ['/passthrough/openai/v1/files/%zz', '/passthrough/openai/v1/files/a%2fb', '/passthrough/openai/v1/files/a%5Cb', '/passthrough/openai/v1/files/%00']) {
      expect(upstreamPathOf(url, openai), url).to.deep.equal({ ok: false, refusal: 'malformed' });
    }
  });

  it('re-encodes what it decoded, appends to upstream_base, and allows everything without a list', () => {
    const rules: PathRules = { stripPrefix: '/p', basePath: '/openai/deployments' };
    expect(upstreamPathOf('/p/v1/files/my%20file:1', rules)).to.deep.equal({ ok: true, path: '/openai/deployments/v1/files/my%20file:1', providerPath: '/v1/files/my%20file:1' });
    expect(upstreamPathOf('/p', rules)).to.deep.equal({ ok: true, path: '/openai/deployments/', providerPath: '/' });
  });
});
