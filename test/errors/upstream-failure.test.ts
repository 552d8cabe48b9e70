import { expect } from 'chai';
import { rememberSecrets, redactSecrets, redactValue } from '../../src/errors/redact.js';
import { classifyUpstreamError, upstreamFailure, upstreamStreamError } from '../../src/errors/upstream-failure.js';
import { toMessagesError } from '../../src/errors/surface-types.js';
import { createLogger } from '../../src/observability/logger.js';
// The old import path keeps working (one-line re-exports for the upstream client's importers).
import { redactSecrets as redactViaClient, upstreamFailure as failureViaClient } from '../../src/upstream/http-client.js';

describe('errors/upstream-failure', () => {
  describe('#classifyUpstreamError', () => {
    const table: Array<[number, { type?: string; code?: string | null }, number, string, string]> = [
      [401, { type: 'authentication_error' }, 502, 'upstream_error', 'upstream_auth_error'],
      [401, { type: 'invalid_request_error', code: 'invalid_api_key' }, 502, 'upstream_error', 'upstream_auth_error'],
      [403, { type: 'permission_error' }, 502, 'upstream_error', 'upstream_auth_error'],
      [400, { type: 'INVALID_ARGUMENT', code: 'API_KEY_INVALID' }, 502, 'upstream_error', 'upstream_auth_error'],
      [402, {}, 502, 'upstream_error', 'upstream_auth_error'],
      [529, { type: 'overloaded_error' }, 503, 'overloaded_error', 'upstream_overloaded'],
      [503, {}, 503, 'overloaded_error', 'upstream_overloaded'],
      [500, { type: 'overloaded_error' }, 503, 'overloaded_error', 'upstream_overloaded'],
      [429, { type: 'rate_limit_error' }, 429, 'rate_limit_error', 'rate_limit_exceeded'],
      [429, { code: 'insufficient_quota' }, 429, 'rate_limit_error', 'insufficient_quota'],
      [429, { type: 'RESOURCE_EXHAUSTED', code: 'RESOURCE_EXHAUSTED' }, 429, 'rate_limit_error', 'RESOURCE_EXHAUSTED'],
      [408, {}, 504, 'timeout_error', 'upstream_timeout'],
      [504, { type: 'timeout_error' }, 504, 'timeout_error', 'upstream_timeout'],
      [400, { code: 'context_length_exceeded' }, 400, 'invalid_request_error', 'context_length_exceeded'],
      [400, {}, 400, 'invalid_request_error', 'upstream_400'],
      [404, {}, 404, 'not_found_error', 'upstream_404'],
      [422, {}, 422, 'invalid_request_error', 'upstream_422'],
      [500, { type: 'server_error' }, 502, 'upstream_error', 'upstream_error'],
      [502, {}, 502, 'upstream_error', 'upstream_error'],
    ];
    for (const [status, info, clientStatus, type, code] of table) {
      it(`maps ${status} ${JSON.stringify(info)} to ${clientStatus} ${type} ${code}`, () => {
        expect(classifyUpstreamError(status, info)).to.deep.equal({ status: clientStatus, type, code });
      });
    }
  });

  describe('#upstreamFailure', () => {
    it('keeps a 429, forwards Retry-After and redacts the message', () => {
      const e = upstreamFailure('openai', 429, { 'retry-after': '7' }, { message: 'slow down sk-test-123456', code: 'rate_limit_exceeded' });
      expect(e.status).to.equal(429);
      expect(e.headers).to.deep.equal({ 'Retry-After': '7' });
      expect(e.message).to.not.include('sk-test-123456');
    });
    it('maps a 500 to 502 and an overload to 503 with Retry-After', () => {
      expect(upstreamFailure('openai', 500, {}, { message: 'boom' }).status).to.equal(502);
      const e = upstreamFailure('anthropic', 529, { 'retry-after': '3' }, { message: 'Overloaded', type: 'overloaded_error' });
      expect([e.status, e.type, e.code, e.headers]).to.deep.equal([503, 'overloaded_error', 'upstream_overloaded', { 'Retry-After': '3' }]);
    });
    it('turns the provider refusing the gateway key into 502 upstream_auth_error naming the provider', () => {
      const e = upstreamFailure('anthropic', 401, {}, { message: 'invalid x-api-key', type: 'authentication_error' });
      expect([e.status, e.type, e.code]).to.deep.equal([502, 'upstream_error', 'upstream_auth_error']);
      expect(e.message).to.include("Provider 'anthropic'").and.include('invalid x-api-key');
      expect(e.details).to.include({ provider: 'anthropic', upstream_status: 401 });
    });
    it('is re-exported from the upstream client unchanged', () => {
      expect(failureViaClient).to.equal(upstreamFailure);
      expect(redactViaClient).to.equal(redactSecrets);
    });
  });

  describe('#upstreamStreamError', () => {
    it('classifies in-band errors with the same table', () => {
      expect(upstreamStreamError(529, { type: 'overloaded_error', message: 'Overloaded' })).to.deep.include({ status: 503, errorType: 'overloaded_error', code: 'upstream_overloaded' });
    });
  });
});

describe('errors/surface-types', () => {
  describe('#toMessagesError', () => {
    it('gives the messages surface Anthropic types and 529 for overload', () => {
      expect(toMessagesError(503, 'overloaded_error', 'upstream_overloaded')).to.deep.equal({ status: 529, type: 'overloaded_error' });
      expect(toMessagesError(502, 'upstream_error', 'upstream_auth_error')).to.deep.equal({ status: 502, type: 'api_error' });
      expect(toMessagesError(400, 'INVALID_ARGUMENT', 'upstream_400')).to.deep.equal({ status: 400, type: 'invalid_request_error' });
      expect(toMessagesError(504, 'timeout_error', 'upstream_timeout')).to.deep.equal({ status: 504, type: 'timeout_error' });
      expect(toMessagesError(500, 'api_error', 'internal_error')).to.deep.equal({ status: 500, type: 'api_error' });
    });
  });
});

describe('errors/redact', () => {
  describe('#redactSecrets', () => {
    it('removes keys a provider quotes back', () => {
      expect(redactSecrets('Incorrect API key provided: sk-proj-****abcd. You can find your key')).to.equal('Incorrect API key provided: [redacted]. You can find your key');
      expect(redactSecrets('API key not valid: AIzaSyDUMMYDUMMYDUMMY')).to.not.include('AIza');
      expect(redactSecrets('sent Bearer abc.def')).to.equal('sent [redacted]');
    });
    it('removes every configured provider key by exact value, whatever it looks like', () => {
      rememberSecrets(['plain-looking-key-42', undefined, 'abc']);
      expect(redactSecrets('key=plain-looking-key-42; again plain-looking-key-42.')).to.equal('key=[redacted]; again [redacted].');
      // Too short to be a key: never redacted (it would eat ordinary words).
      expect(redactSecrets('abc def')).to.equal('abc def');
    });
    it('keeps ordinary messages intact', () => {
      expect(redactSecrets('max_tokens: must be at most 4096')).to.equal('max_tokens: must be at most 4096');
    });
    it('redacts nested values and errors', () => {
      rememberSecrets(['nested-secret-value']);
      expect(redactValue({ a: ['x nested-secret-value'], e: new Error('nested-secret-value') })).to.deep.equal({ a: ['x [redacted]'], e: { type: 'Error', message: '[redacted]' } });
    });
  });

  describe('logger', () => {
    it('never writes a configured provider key, in messages or fields', async () => {
      rememberSecrets(['log-secret-0123456789']);
      const lines: string[] = [];
      // createLogger writes to stdout; capture it for this one line.
      const write = process.stdout.write.bind(process.stdout);
      process.stdout.write = ((chunk: string | Uint8Array) => { lines.push(String(chunk)); return true; }) as typeof process.stdout.write;
      try {
        const logger = createLogger('info');
        logger.error({ upstream: { message: 'echo log-secret-0123456789' }, err: new Error('bad key log-secret-0123456789') }, 'provider said log-secret-0123456789');
        logger.flush?.();
        await new Promise((r) => setTimeout(r, 20));
      } finally {
        process.stdout.write = write;
      }
      const text = lines.join('');
      expect(text).to.include('provider said');
      expect(text).to.not.include('log-secret-0123456789');
      expect(text).to.include('[redacted]');
    });
  });
});
