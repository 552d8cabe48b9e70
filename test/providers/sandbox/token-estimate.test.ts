import { expect } from 'chai';
import { countTokens, splitTokens, truncateToTokens } from '../../../src/providers/sandbox/token-estimate.js';

describe('providers/sandbox/token-estimate', () => {
  describe('#splitTokens', () => {
    it('splits words and punctuation and joins back to the text', () => {
      const text = '  Hello, world!  How are you?  ';
      const pieces = splitTokens(text);
      expect(pieces.join('')).to.equal(text);
      expect(pieces.map((p) => p.trim())).to.deep.equal(['Hello', ',', 'world', '!', 'How', 'are', 'you', '?']);
    });

    it('cuts long words into chunks of 8 characters', () => {
      expect(splitTokens('internationalization')).to.deep.equal(['internat', 'ionaliza', 'tion']);
    });
  });

  describe('#countTokens', () => {
    it('counts pieces and nothing for blank text', () => {
      expect(countTokens('Hello, world!')).to.equal(4);
      expect(countTokens('   ')).to.equal(0);
    });
  });

  describe('#truncateToTokens', () => {
    it('keeps the first N tokens and says whether it cut', () => {
      expect(truncateToTokens('a b c d', 2)).to.deep.equal({ text: 'a b', truncated: true });
      expect(truncateToTokens('a b', 5)).to.deep.equal({ text: 'a b', truncated: false });
    });
  });
});
