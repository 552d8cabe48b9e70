import { expect } from 'chai';
import type { Conversation } from '../../src/codecs/internal.js';
import { countBpeBatch, startBpeWorker } from '../../src/billing/bpe.js';
import { countBpeTokens, countConversationTokens, countFineTokens, countTokensWorstCase, estimateConversationTokens, TOKENS_PER_IMAGE } from '../../src/billing/token-counter.js';

describe('billing/token-counter', () => {
  describe('countBpeTokens', () => {
    it('counts o200k_base tokens of ordinary text (the worker started by the first count)', async () => {
      expect(await countBpeTokens('Hello, world! How are you today?')).to.equal(9);
      expect(await countBpeTokens('')).to.equal(0);
    });

    it('counts special-token text as ordinary text instead of throwing', async () => {
      expect(await countBpeTokens('hello <|endoftext|> world')).to.equal(9);
      expect(await countTokensWorstCase('<|im_start|>system<|im_end|>')).to.be.greaterThan(0);
    });

    it('counts long unbroken strings in pieces, as an upper bound of at most one token per byte', async () => {
      const n = await countBpeTokens('a'.repeat(50_000));
      expect(n).to.be.greaterThan(0).and.at.most(50_000);
    });

    it('startBpeWorker() resolves once the worker has loaded, and counts a batch in order', async () => {
      await startBpeWorker();
      const texts = ['Hello, world! How are you today?', '', 'hello <|endoftext|> world', 'x'.repeat(300)];
      const counts = await countBpeBatch(texts);
      expect(counts.slice(0, 3)).to.deep.equal([9, 0, 9]);
      expect(counts[3]).to.be.greaterThan(0).and.at.most(300);
    });
  });

  describe('countTokensWorstCase', () => {
    it('never counts fewer than the fine-grained word/symbol count', async () => {
      const text = '!!!???...,,,;;;';
      expect(await countTokensWorstCase(text)).to.be.at.least(countFineTokens(text));
      expect(countFineTokens(text)).to.equal(15);
    });

    it('adds a margin over the BPE count', async () => {
      const text = 'The quick brown fox jumps over the lazy dog. '.repeat(10);
      expect(await countTokensWorstCase(text)).to.be.at.least(Math.ceil((await countBpeTokens(text)) * 1.1));
    });
  });

  describe('countConversationTokens', () => {
    it('counts system, messages, tool definitions, framing and images', async () => {
      const request: Conversation = {
        model: 'm', system: ['Be brief.'], stream: false,
        messages: [{ role: 'user', parts: [{ type: 'text', text: 'Describe this.' }, { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' } }] }],
        tools: [{ name: 'lookup', parameters: { type: 'object' } }],
      };
      const count = await countConversationTokens(request);
      expect(count.images).to.equal(1);
      expect(count.tokens).to.equal(count.textTokens + TOKENS_PER_IMAGE);
      expect(count.textTokens).to.be.greaterThan(await countBpeTokens('Be brief.\nDescribe this.'));
      // The cheap estimate (no tokenizer) leans above the BPE count for ordinary text.
      expect(estimateConversationTokens(request)).to.be.at.least(await countBpeTokens('Be brief.\nDescribe this.') + TOKENS_PER_IMAGE);
    });
  });
});
