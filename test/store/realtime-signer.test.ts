import { expect } from 'chai';
import { createRealtimeSigner } from '../../src/store/realtime-signer.js';

const claims = { session: 'rt_1', model: 'sandbox/realtime-1', owner: 'abc', exp: 2_000_000_000, max_duration_seconds: 5, max_budget_usd: 1 };

describe('store/realtime-signer', () => {
  describe('#sign', () => {
    it('builds a ws URL of the gateway from an http base', () => {
      const { url } = createRealtimeSigner('s', 'http://gw.test:8080/').sign(claims);
      expect(url).to.match(/^ws:\/\/gw\.test:8080\/v1\/realtime\/ws\?token=/);
      expect(createRealtimeSigner('s', 'https://gw.test').sign(claims).url).to.match(/^wss:\/\//);
    });
  });
  describe('#verify', () => {
    const signer = createRealtimeSigner('secret', 'http://gw', () => 1_000_000_000_000);
    it('accepts its own token', () => {
      expect(signer.verify(signer.sign(claims).token)).to.deep.equal(claims);
    });
    it('refuses a token with changed claims', () => {
      const [payload, sig] = signer.sign(claims).token.split('.');
      const forged = Buffer.from(JSON.stringify({ ...claims, max_duration_seconds: 3600 })).toString('base64url');
      expect(signer.verify(`${forged}.${sig}`)).to.equal(undefined);
      expect(signer.verify(`${payload}.${sig}x`)).to.equal(undefined);
    });
    it('refuses a token signed with another secret', () => {
      expect(createRealtimeSigner('other', 'http://gw').verify(signer.sign(claims).token)).to.equal(undefined);
    });
    it('refuses an expired token', () => {
      const later = createRealtimeSigner('secret', 'http://gw', () => (claims.exp + 1) * 1000);
      expect(later.verify(signer.sign(claims).token)).to.equal(undefined);
    });
    it('refuses garbage', () => {
      expect(signer.verify('')).to.equal(undefined);
      expect(signer.verify('a.b.c')).to.equal(undefined);
    });
  });
});

describe('store/realtime-signer with a configured lifetime', () => {
  it('sets the expiry from url_ttl_seconds, whatever the provider proposed', () => {
    const signer = createRealtimeSigner('secret', 'http://gw', () => 1_000_000_000_000, 60);
    const signed = signer.sign(claims);
    expect(signed.expiresAt).to.equal(1_000_000_000 + 60);
    expect(signer.verify(signed.token)?.exp).to.equal(1_000_000_060);
  });
});
