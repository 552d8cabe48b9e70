import { expect } from 'chai';
import { costComment, injectCostIntoBody, injectCostIntoFrame } from '../../src/billing/frame-cost.js';

describe('billing/frame-cost', () => {
  describe('injectCostIntoFrame', () => {
    it('adds usage.cost to a chat usage chunk', () => {
      const frame = { data: JSON.stringify({ object: 'chat.completion.chunk', choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } }) };
      expect(JSON.parse(injectCostIntoFrame(frame, 0.5).data).usage).to.deep.equal({ prompt_tokens: 1, completion_tokens: 2, cost: 0.5 });
    });

    it('adds it to a messages message_delta and to a responses response.completed', () => {
      const delta = { event: 'message_delta', data: JSON.stringify({ type: 'message_delta', usage: { output_tokens: 3 } }) };
      const out = injectCostIntoFrame(delta, 0.25);
      expect(out.event).to.equal('message_delta');
      expect(JSON.parse(out.data).usage.cost).to.equal(0.25);
      const completed = { event: 'response.completed', data: JSON.stringify({ type: 'response.completed', response: { usage: { input_tokens: 1 } } }) };
      expect(JSON.parse(injectCostIntoFrame(completed, 0.1).data).response.usage.cost).to.equal(0.1);
    });

    it('gives the same JSON as a parse and stringify would, whichever path it takes', () => {
      const cases = [
        '{"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":0}}}',
        '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{}}',
        '{"id":"c","choices":[{"delta":{"content":"\\"usage\\":{ in text"}}],"usage":{"total_tokens":3}}',
        '{"choices":[],"usage":{"cost":0.9,"total_tokens":3}}',
        '{"choices":[], "usage": {"total_tokens": 3}}',
        '{"type":"message_start","message":{"usage":{"input_tokens":5}}}',
        '{"x":{"usage":{"a":1}},"usage":{"b":2}}',
      ];
      for (const data of cases) {
        const expected = JSON.parse(data) as Record<string, unknown>;
        injectCostIntoBody(expected, 0.000228);
        expect(JSON.parse(injectCostIntoFrame({ data }, 0.000228).data), data).to.deep.equal(expected);
      }
    });

    it('leaves frames without a usage object untouched', () => {
      const frame = { data: '{"choices":[],"usage":null}' };
      expect(injectCostIntoFrame(frame, 1)).to.equal(frame);
      const done = { data: '[DONE]' };
      expect(injectCostIntoFrame(done, 1)).to.equal(done);
    });
  });

  describe('injectCostIntoBody', () => {
    it('reports whether the body had a usage object', () => {
      const body: Record<string, unknown> = { usage: { total_tokens: 3 } };
      expect(injectCostIntoBody(body, 0.2)).to.equal(true);
      expect(body.usage).to.deep.equal({ total_tokens: 3, cost: 0.2 });
      expect(injectCostIntoBody({ data: [] }, 0.2)).to.equal(false);
    });
  });

  describe('costComment', () => {
    it('is an SSE comment line', () => {
      expect(costComment('0.01')).to.equal(': x-gateway-cost: 0.01\n\n');
    });
  });
});
