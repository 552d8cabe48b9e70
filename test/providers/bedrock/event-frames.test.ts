import { expect } from 'chai';
import { claudeChunkText, converseEventText } from '../../../src/providers/bedrock/event-frames.js';
import type { EventStreamMessage } from '../../../src/upstream/event-stream.js';

const message = (headers: Record<string, string>, payload: string): EventStreamMessage => ({ headers, payload: Buffer.from(payload, 'utf8') });

describe('providers/bedrock/event-frames (event-stream messages as SSE)', () => {
  describe('converseEventText', () => {
    it('writes an event under its :event-type with its JSON payload', () => {
      expect(converseEventText(message({ ':message-type': 'event', ':event-type': 'contentBlockDelta' }, '{"contentBlockIndex":0,"delta":{"text":"hi"}}')))
        .to.equal('event: contentBlockDelta\ndata: {"contentBlockIndex":0,"delta":{"text":"hi"}}\n\n');
    });
    it('keeps a payload with line breaks one event (a data line each)', () => {
      expect(converseEventText(message({ ':event-type': 'metadata' }, '{\n"usage":{}\n}'))).to.equal('event: metadata\ndata: {\ndata: "usage":{}\ndata: }\n\n');
    });
    it('names a modeled exception by its :exception-type and an unmodeled error `error` with code and message', () => {
      expect(converseEventText(message({ ':message-type': 'exception', ':exception-type': 'validationException' }, '{"message":"bad"}'))).to.equal('event: validationException\ndata: {"message":"bad"}\n\n');
      expect(converseEventText(message({ ':message-type': 'error', ':error-code': 'InternalFailure', ':error-message': 'boom' }, ''))).to.equal('event: error\ndata: {"code":"InternalFailure","message":"boom"}\n\n');
    });
  });

  describe('claudeChunkText', () => {
    it('unwraps the base64 `bytes` of a chunk into the Anthropic event it carries', () => {
      const event = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'héllo' } };
      const bytes = Buffer.from(JSON.stringify(event)).toString('base64');
      expect(claudeChunkText(message({ ':message-type': 'event', ':event-type': 'chunk' }, JSON.stringify({ bytes })))).to.equal(`event: content_block_delta\ndata: ${JSON.stringify(event)}\n\n`);
    });
    it('turns exceptions into Anthropic error events of the matching type', () => {
      const text = claudeChunkText(message({ ':message-type': 'exception', ':exception-type': 'throttlingException' }, '{"message":"slow down"}'))!;
      expect(text.startsWith('event: error\ndata: ')).to.equal(true);
      expect(JSON.parse(text.slice('event: error\ndata: '.length))).to.deep.equal({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down (throttlingException)' } });
      const other = claudeChunkText(message({ ':message-type': 'exception', ':exception-type': 'internalServerException' }, 'not json'))!;
      expect(JSON.parse(other.split('data: ')[1]!)).to.deep.include({ type: 'error' }).and.have.nested.property('error.type', 'api_error');
    });
    it('ignores events that are not chunks', () => {
      expect(claudeChunkText(message({ ':event-type': 'initial-response' }, '{}'))).to.equal(undefined);
    });
  });
});
