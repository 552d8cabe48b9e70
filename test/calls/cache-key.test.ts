import { expect } from 'chai';
import { cacheKey, isUncacheable, type CacheIdentity } from '../../src/calls/cache/cache-key.js';
import { planCache } from '../../src/calls/cache/cache-plan.js';
import { surfaces } from '../../src/compile/registry.js';
import { configDefaults } from '../../src/config/defaults.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';

const chat = surfaces.get('openai-chat')!;
const who: CacheIdentity = { owner: 'key:a', team: 'team-1' };
const base = { model: 'openai/gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2 };
const keyOf = (body: Record<string, unknown>, scope: 'key' | 'team' | 'global' = 'key', owner: CacheIdentity = who) => cacheKey('chat.completions', scope, owner, body, chat.decodeRequest(body));

describe('calls/cache: the cache key and plan', () => {
  it('is the same for plain and streamed, and ignores user, metadata and key order', () => {
    const k = keyOf(base);
    expect(keyOf({ ...base, stream: true, stream_options: { include_usage: true } })).to.equal(k);
    expect(keyOf({ ...base, user: 'u1', metadata: { a: 1 } })).to.equal(k);
    expect(keyOf({ temperature: 0.2, messages: base.messages, model: base.model })).to.equal(k);
  });

  it('changes with anything that changes the answer, and with the scope', () => {
    const k = keyOf(base);
    for (const changed of [{ temperature: 0.3 }, { seed: 7 }, { model: 'openai/gpt-4.1' }, { messages: [{ role: 'user', content: 'hi!' }] }, { tools: [{ type: 'function', function: { name: 'f' } }] }, { response_format: { type: 'json_object' } }]) {
      expect(keyOf({ ...base, ...changed }), JSON.stringify(changed)).not.to.equal(k);
    }
    expect(keyOf(base, 'key', { owner: 'key:b', team: 'team-1' }), 'another key').not.to.equal(k);
    expect(keyOf(base, 'team'), 'team scope').to.equal(keyOf(base, 'team', { owner: 'key:b', team: 'team-1' }));
    expect(keyOf(base, 'team', { owner: 'key:c' }), 'a key without a team').not.to.equal(keyOf(base, 'team'));
    expect(keyOf(base, 'global', { owner: 'key:z' })).to.equal(keyOf(base, 'global'));
    expect(cacheKey('embeddings', 'key', who, { model: 'm', input: 'x' })).not.to.equal(cacheKey('embeddings', 'key', who, { model: 'm', input: 'y' }));
    expect(cacheKey('embeddings', 'key', who, { model: 'm', input: 'x', user: 'u' })).to.equal(cacheKey('embeddings', 'key', who, { model: 'm', input: 'x' }));
  });

  it('never caches stateful requests or answers a stored one cannot hold', () => {
    expect(isUncacheable('responses', { input: 'x' }), 'store defaults to true').to.equal(true);
    expect(isUncacheable('responses', { input: 'x', store: false })).to.equal(false);
    expect(isUncacheable('responses', { input: 'x', store: false, previous_response_id: 'resp_1' })).to.equal(true);
    expect(isUncacheable('chat.completions', { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] })).to.equal(true);
    expect(isUncacheable('chat.completions', { n: 2 })).to.equal(true);
    expect(isUncacheable('chat.completions', { logprobs: true })).to.equal(true);
    expect(isUncacheable('chat.completions', base)).to.equal(false);
  });

  it('plans hit/miss/store/bypass from the settings and headers, key over model over top level', () => {
    const config = { ...configDefaults.cache, enabled: true };
    const ask = { config, operation: 'chat.completions', uncacheable: false };
    expect(planCache(ask)).to.deep.include({ read: true, write: true, status: 'miss', ttlSeconds: 3600 });
    expect(planCache({ ...ask, cacheControl: 'no-cache' })).to.deep.include({ read: false, write: true, status: 'store' });
    expect(planCache({ ...ask, cacheControl: 'max-age=0, No-Store' })).to.deep.include({ read: false, write: false, status: 'bypass' });
    expect(planCache({ ...ask, uncacheable: true })?.status).to.equal('bypass');
    expect(planCache({ ...ask, ttlHeader: '60' })?.ttlSeconds).to.equal(60);
    expect(planCache({ ...ask, ttlHeader: '99999' })?.ttlSeconds, 'never lengthened').to.equal(3600);
    expect(planCache({ ...ask, model: { ttl_s: 100 }, key: { ttl_s: 50 } })?.ttlSeconds).to.equal(50);
    expect(planCache({ ...ask, key: { enabled: false } })).to.equal(undefined);
    expect(planCache({ ...ask, config: { ...config, enabled: false }, model: { enabled: true } })?.status).to.equal('miss');
    expect(planCache({ ...ask, operation: 'images.generations' })).to.equal(undefined);
    try {
      planCache({ ...ask, ttlHeader: '-1' });
      expect.fail('a negative TTL is refused');
    } catch (e) {
      expect(isGatewayError(e) && e.code).to.equal('invalid_cache_ttl');
    }
  });
});
