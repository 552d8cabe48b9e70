import { expect } from 'chai';
import type { Conversation, StreamEvent } from '../../../src/codecs/internal.js';
import { geminiDialect } from '../../../src/codecs/gemini/index.js';
import { GoldenCase, listCases, runStreamDecoder, toPlainJson, useFixedClock } from '../openai-responses/golden-support.js';
import { generateContentValidator } from './generate-content-schema.js';

const FORMAT = 'gemini';
const EMPTY_REQUEST: Conversation = { model: '', system: [], messages: [], stream: false };

function requestOf(c: GoldenCase): Conversation {
  return c.has('internal-request.json') ? c.read<Conversation>('internal-request.json') : EMPTY_REQUEST;
}

describe('codecs/gemini (golden files)', () => {
  useFixedClock();

  describe('geminiDialect.authHeaders', () => {
    it('sends the key in x-goog-api-key, not as a Bearer token', () => {
      expect(geminiDialect.authHeaders('k-123', {})).to.deep.equal({ 'x-goog-api-key': 'k-123' });
    });
  });

  for (const name of listCases(FORMAT)) {
    const c = new GoldenCase(FORMAT, name);
    describe(`${name}: ${c.meta().description ?? ''}`, () => {
      if (c.has('internal-request.json') && c.has('upstream-request.json')) {
        it('encodeRequest writes upstream-request: documented path and a GenerateContentRequest body', () => {
          const request = requestOf(c);
          const encoded = geminiDialect.encodeRequest(request, c.target());
          expect(toPlainJson(encoded)).to.deep.equal(c.read('upstream-request.json'));
          const method = request.stream ? 'streamGenerateContent\\?alt=sse' : 'generateContent';
          expect(encoded.path).to.match(new RegExp(`^/v1beta/models/[^/:]+:${method}$`));
          const validate = generateContentValidator();
          expect(validate(encoded.body), JSON.stringify(validate.errors, null, 1)).to.equal(true);
        });
      }

      if (c.has('upstream-response.json') && c.has('internal-response.json')) {
        it('decodeResponse turns upstream-response into internal-response', () => {
          const decoded = geminiDialect.decodeResponse(c.read('upstream-response.json'), requestOf(c));
          expect(toPlainJson(decoded)).to.deep.equal(c.read('internal-response.json'));
        });
      }

      if (c.has('upstream-stream.json') && c.has('internal-stream.json')) {
        it('the stream decoder turns upstream-stream into internal-stream', () => {
          const events = runStreamDecoder(geminiDialect.createStreamDecoder(requestOf(c)), c.read('upstream-stream.json'));
          expect(toPlainJson(events)).to.deep.equal(c.read<StreamEvent[]>('internal-stream.json'));
        });
      }

      if (c.has('upstream-error.json') && c.has('decoded-error.json')) {
        it('decodeError reads upstream-error (google.rpc shape)', () => {
          const { status, body } = c.read<{ status: number; body: unknown }>('upstream-error.json');
          expect(toPlainJson(geminiDialect.decodeError(status, body))).to.deep.equal(c.read('decoded-error.json'));
        });
      }
    });
  }
});
