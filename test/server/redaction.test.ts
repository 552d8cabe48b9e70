import { expect } from 'chai';
import { redactSecrets, upstreamFailure } from '../../src/upstream/http-client.js';

describe('upstream/http-client', () => {
  describe('#redactSecrets', () => {
    it('removes keys a provider quotes back', () => {
      expect(redactSecrets('Incorrect API key provided: sk-proj-****abcd. You can find your key')).to.equal('Incorrect API key provided: [redacted]. You can find your key');
      expect(redactSecrets('API key not valid: AIzaSyDUMMYDUMMYDUMMY')).to.not.include('AIza');
      expect(redactSecrets('sent Bearer abc.def')).to.equal('sent [redacted]');
    });
    it('keeps ordinary messages intact', () => {
      expect(redactSecrets('max_tokens: must be at most 4096')).to.equal('max_tokens: must be at most 4096');
    });
  });
  describe('#upstreamFailure', () => {
    it('keeps a 4xx status, forwards Retry-After and redacts the message', () => {
      const e = upstreamFailure('openai', 429, { 'retry-after': '7' }, { message: 'slow down sk-test-123456', code: 'rate_limit_exceeded' });
      expect(e.status).to.equal(429);
      expect(e.headers).to.deep.equal({ 'Retry-After': '7' });
      expect(e.message).to.not.include('sk-test-123456');
    });
    it('maps a 5xx to 502', () => {
      expect(upstreamFailure('openai', 503, {}, { message: 'overloaded' }).status).to.equal(502);
    });
  });
});
