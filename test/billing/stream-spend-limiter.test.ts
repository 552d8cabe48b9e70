import { expect } from 'chai';
import { parsePricing } from '../../src/billing/pricing.js';
import { limitStreamSpend } from '../../src/billing/stream-spend-limiter.js';
import { computeTextCost } from '../../src/billing/text-cost.js';
import { countBpeTokens } from '../../src/billing/token-counter.js';
import type { StreamEvent, Usage } from '../../src/codecs/internal.js';

const pricing = parsePricing({ prompt: '0.000001', completion: '0.00001' });

function answerEvents(words: number, usage?: Usage): StreamEvent[] {
  const events: StreamEvent[] = [{ type: 'start', id: 'r', model: 'm', created: 0, usage: { inputTokens: 100 } }, { type: 'block_start', index: 0, block: { type: 'text' } }];
  for (let i = 0; i < words; i++) events.push({ type: 'block_delta', index: 0, delta: { type: 'text', text: ' word' } });
  events.push({ type: 'block_stop', index: 0 }, { type: 'finish', finishReason: 'stop' }, { type: 'usage', usage: usage ?? { inputTokens: 100, outputTokens: words } });
  return events;
}

async function collect(source: StreamEvent[], budgetUsd: number): Promise<{ events: StreamEvent[]; pulled: number; closed: boolean }> {
  let pulled = 0;
  let closed = false;
  async function* upstream(): AsyncGenerator<StreamEvent> {
    try {
      for (const e of source) { pulled++; yield e; }
    } finally {
      closed = true;
    }
  }
  const events: StreamEvent[] = [];
  for await (const e of limitStreamSpend(upstream(), { budgetUsd, pricing, inputTokens: 500 })) events.push(e);
  return { events, pulled, closed };
}

describe('billing/stream-spend-limiter', () => {
  describe('limitStreamSpend', () => {
    it('passes a stream that stays within budget through unchanged', async () => {
      const source = answerEvents(10);
      const { events } = await collect(source, 1);
      expect(events).to.deep.equal(source);
    });

    it('ends the stream with a length finish once the budget is reached, within one chunk', async () => {
      const budget = 100 * 0.000001 + 20 * 0.00001; // the prompt plus 20 output tokens
      const { events, closed, pulled } = await collect(answerEvents(1000), budget);
      const deltas = events.filter((e) => e.type === 'block_delta');
      expect(deltas.length).to.equal(20);
      expect(events.at(-3)).to.deep.equal({ type: 'block_stop', index: 0 });
      expect(events.at(-2)).to.deep.equal({ type: 'finish', finishReason: 'length' });
      const usage = events.at(-1);
      expect(usage?.type).to.equal('usage');
      const cost = computeTextCost((usage as { usage: Usage }).usage, pricing);
      const chunk = (await countBpeTokens(' word')) * 0.00001;
      expect(cost).to.be.at.most(budget + chunk + 1e-12);
      expect(cost).to.be.greaterThan(budget);
      expect(closed).to.equal(true);
      expect(pulled).to.be.lessThan(30);
    });

    it('uses the estimate for the prompt until the upstream reports its own count', async () => {
      const source = answerEvents(5).map((e) => (e.type === 'start' ? { ...e, usage: undefined } : e));
      // 500 estimated prompt tokens cost 0.0005: with a budget of 0.00052 only 2 tokens fit.
      const { events } = await collect(source as StreamEvent[], 0.00052);
      expect(events.filter((e) => e.type === 'block_delta').length).to.equal(2);
    });

    it('counts thinking deltas as reasoning and stops open tool calls too', async () => {
      const source: StreamEvent[] = [
        { type: 'start', id: 'r', model: 'm', created: 0, usage: { inputTokens: 0 } },
        { type: 'block_start', index: 0, block: { type: 'thinking' } },
        ...Array.from({ length: 50 }, (): StreamEvent => ({ type: 'block_delta', index: 0, delta: { type: 'thinking', text: ' hmm' } })),
        { type: 'block_stop', index: 0 },
        { type: 'finish', finishReason: 'stop' },
      ];
      const { events } = await collect(source, 10 * 0.00001);
      const usage = events.at(-1) as { type: 'usage'; usage: Usage };
      expect(usage.usage.reasoningTokens).to.equal(usage.usage.outputTokens);
      expect(events.at(-2)).to.deep.equal({ type: 'finish', finishReason: 'length' });
    });
  });
});
