import { expect } from 'chai';
import type { Conversation } from '../../src/codecs/internal.js';
import { countBpeTokens, countConversationTokens, countFineTokens, countTokensWorstCase, TOKENS_PER_IMAGE } from '../../src/billing/token-counter.js';

describe('billing/token-counter', () => {
  describe('countBpeTokens', () => {
    it('counts o200k_base tokens of ordinary text', () => {
      expect(countBpeTokens('Hello, world! How are you today?')).to.equal(9);
      expect(countBpeTokens('')).to.equal(0);
    });

    it('stays fast on long unbroken strings (pieces are cut before the BPE)', () => {
      const started = performance.now();
      const n = countBpeTokens('a'.repeat(50_000));
      expect(n).to.be.greaterThan(0);
      expect(performance.now() - started).to.be.lessThan(2000);
    });
  });

  describe('countTokensWorstCase', () => {
    it('never counts fewer than the fine-grained word/symbol count', () => {
      const text = '!!!???...,,,;;;';
      expect(countTokensWorstCase(text)).to.be.at.least(countFineTokens(text));
      expect(countFineTokens(text)).to.equal(15);
    });

    it('adds a margin over the BPE count', () => {
      const text = 'The quick brown fox jumps over the lazy dog. '.repeat(10);
      expect(countTokensWorstCase(text)).to.be.at.least(Math.ceil(countBpeTokens(text) * 1.1));
    });
  });

  describe('countConversationTokens', () => {
    it('counts system, messages, tool definitions, framing and images', () => {
      const request: Conversation = {
        model: 'm', system: ['Be brief.'], stream: false,
        messages: [{ role: 'user', parts: [{ type: 'text', text: 'Describe this.' }, { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } }] }],
        tools: [{ name: 'lookup', parameters: { type: 'object' } }],
      };
      const count = countConversationTokens(request);
      expect(count.images).to.equal(1);
      expect(count.tokens).to.equal(count.textTokens + TOKENS_PER_IMAGE);
      expect(count.textTokens).to.be.greaterThan(countBpeTokens('Be brief.\nDescribe this.'));
    });
  });
});
