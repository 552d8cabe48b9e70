import { expect } from 'chai';
import type { Conversation, StreamEvent } from '../../../src/codecs/internal.js';
import { bedrockConverseDialect, decodeBedrockError, statusOfBedrockError } from '../../../src/codecs/bedrock-converse/index.js';
import { classifyUpstreamError } from '../../../src/errors/upstream-failure.js';
import { GoldenCase, listCases, runStreamDecoder, toPlainJson, useFixedClock } from '../openai-responses/golden-support.js';

const FORMAT = 'bedrock-converse';
const EMPTY_REQUEST: Conversation = { model: 'bedrock/test', system: [], messages: [], stream: false };

function requestOf(c: GoldenCase): Conversation {
  return c.has('internal-request.json') ? c.read<Conversation>('internal-request.json') : EMPTY_REQUEST;
}

/** Converse ids are made up by the gateway (`bedrock-<24 random>`): compared masked. */
function masked<T>(value: T): T {
  return JSON.parse(JSON.stringify(value).replace(/bedrock-[A-Za-z0-9]{24}/g, 'bedrock-<random>')) as T;
}

describe('codecs/bedrock-converse (golden files)', () => {
  useFixedClock();

  describe('bedrockConverseDialect.authHeaders', () => {
    it('puts no key in headers (requests are SigV4-signed by the provider)', () => {
      expect(bedrockConverseDialect.authHeaders('k', {})).to.deep.equal({});
    });
  });

  for (const name of listCases(FORMAT)) {
    const c = new GoldenCase(FORMAT, name);
    describe(`${name}: ${c.meta().description ?? ''}`, () => {
      if (c.has('internal-request.json') && c.has('upstream-request.json')) {
        it('encodeRequest writes upstream-request (path with the percent-encoded model id, Converse body)', () => {
          const request = requestOf(c);
          const encoded = bedrockConverseDialect.encodeRequest(request, c.target());
          expect(toPlainJson(encoded)).to.deep.equal(c.read('upstream-request.json'));
          expect(encoded.path).to.match(new RegExp(`^/model/[^/]+/${request.stream ? 'converse-stream' : 'converse'}$`));
          expect(encoded.body).to.not.have.property('modelId');
        });
      }

      if (c.has('upstream-response.json') && c.has('internal-response.json')) {
        it('decodeResponse turns upstream-response into internal-response', () => {
          const decoded = bedrockConverseDialect.decodeResponse(c.read('upstream-response.json'), requestOf(c));
          expect(masked(toPlainJson(decoded))).to.deep.equal(c.read('internal-response.json'));
        });
      }

      if (c.has('upstream-stream.json') && c.has('internal-stream.json')) {
        it('the stream decoder turns upstream-stream into internal-stream', () => {
          const events = runStreamDecoder(bedrockConverseDialect.createStreamDecoder(requestOf(c)), c.read('upstream-stream.json'));
          expect(masked(toPlainJson(events))).to.deep.equal(c.read<StreamEvent[]>('internal-stream.json'));
        });
      }

      if (c.has('upstream-error.json') && c.has('decoded-error.json')) {
        it('decodeError reads upstream-error and the error table classifies it', () => {
          const { status, body, errorType } = c.read<{ status: number; body: unknown; errorType?: string }>('upstream-error.json');
          const decoded = decodeBedrockError(status, body, errorType);
          const client = classifyUpstreamError(statusOfBedrockError(decoded.type, status), decoded);
          expect(toPlainJson({ decoded, client })).to.deep.equal(c.read('decoded-error.json'));
        });
      }
    });
  }

  it('a model id is a percent-encoded path label (":" and an ARN\'s "/")', () => {
    const target = { upstreamModel: 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-x-v1:0', supportedParameters: new Set<string>(), options: {} };
    const encoded = bedrockConverseDialect.encodeRequest({ ...EMPTY_REQUEST, messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }] }, target);
    expect(encoded.path).to.equal('/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-x-v1%3A0/converse');
  });

  it('an http image URL is a 400 naming the limit (Converse takes bytes)', () => {
    const request: Conversation = { ...EMPTY_REQUEST, messages: [{ role: 'user', parts: [{ type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } }] }] };
    expect(() => bedrockConverseDialect.encodeRequest(request, { upstreamModel: 'amazon.nova-lite-v1:0', supportedParameters: new Set(), options: {} }))
      .to.throw(/as bytes/).with.property('code', 'unsupported_content');
  });
});
