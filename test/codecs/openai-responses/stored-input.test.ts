import { expect } from 'chai';
import { expandStoredReferences, findStoredReferences, listConversationItems } from '../../../src/codecs/openai-responses/stored-input.js';
import { isGatewayError } from '../../../src/errors/gateway-error.js';

const PREVIOUS = {
  input: [{ type: 'message', role: 'user', content: 'first' }],
  response: { id: 'resp_1', output: [{ id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' }] },
};

function codeOf(fn: () => unknown): string | null | undefined {
  try {
    fn();
  } catch (e) {
    if (isGatewayError(e)) return e.code;
    throw e;
  }
  return undefined;
}

describe('codecs/openai-responses/stored-input', () => {
  describe('#findStoredReferences', () => {
    it('finds previous_response_id and item_reference ids (once each)', () => {
      const refs = findStoredReferences({ previous_response_id: 'resp_1', input: [{ type: 'item_reference', id: 'a' }, { role: 'user', content: 'x' }, { type: 'item_reference', id: 'a' }] });
      expect(refs).to.deep.equal({ previousResponseId: 'resp_1', itemIds: ['a'] });
    });
    it('finds nothing in a string input', () => {
      expect(findStoredReferences({ input: 'hi' })).to.deep.equal({ itemIds: [] });
    });
  });

  describe('#expandStoredReferences', () => {
    it('puts the previous conversation first, then the new input, and drops previous_response_id', () => {
      const out = expandStoredReferences({ model: 'm', previous_response_id: 'resp_1', input: 'second' }, PREVIOUS, new Map());
      expect(out).to.not.have.property('previous_response_id');
      expect(out.input).to.deep.equal([...listConversationItems(PREVIOUS), { type: 'message', role: 'user', content: 'second' }]);
    });
    it('swaps each item_reference for its stored item, in place', () => {
      const item = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' };
      const out = expandStoredReferences({ input: [{ role: 'user', content: 'q' }, { type: 'item_reference', id: 'fc_1' }] }, undefined, new Map([['fc_1', item]]));
      expect(out.input).to.deep.equal([{ role: 'user', content: 'q' }, item]);
    });
    it('refuses an unknown previous response or item with a 400 code naming it', () => {
      expect(codeOf(() => expandStoredReferences({ previous_response_id: 'resp_x', input: 'q' }, undefined, new Map()))).to.equal('previous_response_not_found');
      expect(codeOf(() => expandStoredReferences({ input: [{ type: 'item_reference', id: 'nope' }] }, undefined, new Map()))).to.equal('item_not_found');
    });
    it('leaves unknown references for an upstream that resolves its own ids', () => {
      const body = { previous_response_id: 'resp_x', input: [{ type: 'item_reference', id: 'nope' }] };
      expect(expandStoredReferences(body, undefined, new Map(), true)).to.deep.equal(body);
    });
  });
});
