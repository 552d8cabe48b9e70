import { expect } from 'chai';
import { openAiResponsesDialect } from '../../../src/codecs/openai-responses/index.js';

describe('codecs/openai-responses/dialect', () => {
  describe('authHeaders', () => {
    it('sends the key as a Bearer token when no options are set', () => {
      expect(openAiResponsesDialect.authHeaders('sk-1', {})).to.deep.equal({ authorization: 'Bearer sk-1' });
    });

    it('adds the organization and project headers when the provider options name them', () => {
      expect(openAiResponsesDialect.authHeaders('sk-1', { organization: 'org-9', project: 'proj-7' })).to.deep.equal({
        authorization: 'Bearer sk-1',
        'openai-organization': 'org-9',
        'openai-project': 'proj-7',
      });
    });
  });
});
