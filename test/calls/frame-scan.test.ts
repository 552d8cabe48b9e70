import { expect } from 'chai';
import { mustDecode, outputCharsOf } from '../../src/calls/frame-scan.js';

describe('calls/frame-scan', () => {
  describe('#mustDecode', () => {
    const table: Array<[string, { event?: string; data: string }, boolean]> = [
      ['chat content chunk', { data: '{"choices":[{"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}' }, false],
      ['chat finish chunk', { data: '{"choices":[{"delta":{},"finish_reason":"stop"}],"usage":null}' }, true],
      ['chat usage chunk', { data: '{"choices":[],"usage":{"prompt_tokens":1}}' }, true],
      ['chat error chunk', { data: '{"error":{"message":"boom"}}' }, true],
      ['chat content chunk written with spaces', { data: '{"choices": [{"delta": {"content": "Hi"}, "finish_reason": null}], "usage": null}' }, false],
      ['chat finish chunk written with spaces', { data: '{"choices": [{"delta": {}, "finish_reason": "stop"}]}' }, true],
      ['chat usage chunk written with spaces', { data: '{"choices": [], "usage": {"prompt_tokens": 1}}' }, true],
      ['chat content chunk quoting the needles in its text', { data: '{"choices":[{"delta":{"content":"\\"usage\\": {}, \\"finish_reason\\": \\"stop\\", \\"error\\""},"finish_reason":null}]}' }, false],
      ['chat finish chunk of a router (native_finish_reason)', { data: '{"choices":[{"delta":{},"native_finish_reason":"end_turn","finish_reason":"stop"}]}' }, true],
      ['[DONE]', { data: '[DONE]' }, true],
      ['anthropic message_start', { event: 'message_start', data: '{}' }, true],
      ['anthropic text delta', { event: 'content_block_delta', data: '{}' }, false],
      ['anthropic message_delta', { event: 'message_delta', data: '{}' }, true],
      ['anthropic message_stop', { event: 'message_stop', data: '{}' }, true],
      ['anthropic error', { event: 'error', data: '{}' }, true],
      ['responses created', { event: 'response.created', data: '{}' }, true],
      ['responses text delta', { event: 'response.output_text.delta', data: '{}' }, false],
      ['responses item added', { event: 'response.output_item.added', data: '{}' }, false],
      ['responses completed', { event: 'response.completed', data: '{}' }, true],
      ['responses failed', { event: 'response.failed', data: '{}' }, true],
    ];
    for (const [name, frame, expected] of table) it(`${expected ? 'decodes' : 'skips'} a ${name}`, () => expect(mustDecode(frame, false)).to.equal(expected));
    it('always decodes the first frame', () => expect(mustDecode({ event: 'content_block_delta', data: '{}' }, true)).to.equal(true));
  });

  describe('#outputCharsOf', () => {
    it('measures generated text in every same-format delta shape, escapes as written', () => {
      expect(outputCharsOf('{"choices":[{"delta":{"content":"Hello"}}]}')).to.equal(5);
      expect(outputCharsOf('{"type":"content_block_delta","delta":{"type":"text_delta","text":"a\\"b"}}')).to.equal(4);
      expect(outputCharsOf('{"type":"response.output_text.delta","delta":"abc"}')).to.equal(3);
      expect(outputCharsOf('{"delta":{"type":"input_json_delta","partial_json":"{\\"x\\":1}"}}')).to.equal(9);
      expect(outputCharsOf('{"choices":[{"delta":{}}]}')).to.equal(0);
    });
  });
});
