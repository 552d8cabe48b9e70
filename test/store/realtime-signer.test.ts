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
    it('refuses a token with any byte changed', () => {
      const raw = Buffer.from(signer.sign(claims).token, 'base64url');
      for (const at of [0, 14, raw.length - 1]) {
        const bent = Buffer.from(raw);
        bent[at] = bent[at]! ^ 1;
        expect(signer.verify(bent.toString('base64url'))).to.equal(undefined);
      }
      expect(signer.verify(`${signer.sign(claims).token}x`)).to.equal(undefined);
    });
    it('keeps the claims sealed: no owner, model or session in the token', () => {
      const token = signer.sign({ ...claims, owner: 'f'.repeat(64) }).token;
      const raw = Buffer.from(token, 'base64url').toString('latin1');
      for (const clear of ['f'.repeat(16), 'sandbox', 'rt_1']) {
        expect(raw).to.not.include(clear);
        expect(token).to.not.include(clear);
      }
    });
    it('makes a new token on every sign (each names one session)', () => {
      expect(signer.sign(claims).token).to.not.equal(signer.sign(claims).token);
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
