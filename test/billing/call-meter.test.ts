import { expect } from 'chai';
import { createCallMeter } from '../../src/billing/call-meter.js';
import { parsePricing } from '../../src/billing/pricing.js';
import { realtimeSessionLimit } from '../../src/billing/realtime-meter.js';
import type { SpendHold } from '../../src/billing/spend-hold.js';
import type { Conversation } from '../../src/codecs/internal.js';

const pricing = parsePricing({ prompt: '0.000001', completion: '0.00001' });
const request: Conversation = { model: 'm', system: [], stream: true, messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }] };

function recordingHold(): SpendHold & { settled: Array<[number, number]> } {
  const settled: Array<[number, number]> = [];
  return { needsEstimate: false, settled, reserve: async () => 0, settle: async (c, t) => { settled.push([c, t]); } };
}

describe('billing/call-meter', () => {
  describe('createCallMeter', () => {
    it('prices the usage event of a stream and settles once', async () => {
      const hold = recordingHold();
      const meter = createCallMeter(request, pricing, hold);
      meter.observe({ type: 'usage', usage: { inputTokens: 100, outputTokens: 10 } });
      expect(meter.cost()).to.be.closeTo(0.0002, 1e-12);
      expect(meter.usage()).to.deep.equal({ usage: { inputTokens: 100, outputTokens: 10 }, estimated: false });
      expect(await meter.finish()).to.be.closeTo(0.0002, 1e-12);
      await meter.finish();
      await meter.abandon();
      expect(hold.settled).to.deep.equal([[0.0002, 110]]);
    });

    it('bills from what passed through when the stream reported no usage', async () => {
      const hold = recordingHold();
      const meter = createCallMeter(request, pricing, hold, 50);
      meter.observe({ type: 'block_delta', index: 0, delta: { type: 'text', text: 'x'.repeat(30) } });
      expect(await meter.finish()).to.be.closeTo(50 * 0.000001 + 10 * 0.00001, 1e-12);
      expect(meter.usage(), 'what it estimated').to.deep.equal({ usage: { inputTokens: 50, outputTokens: 10 }, estimated: true });
    });

    it('releases the hold with nothing spent when the call failed first', async () => {
      const hold = recordingHold();
      await createCallMeter(request, pricing, hold).abandon();
      expect(hold.settled).to.deep.equal([[0, 0]]);
    });
  });
});

describe('billing/realtime-meter', () => {
  describe('realtimeSessionLimit', () => {
    it('is the shorter of the duration and what the budget buys at audio_second', () => {
      expect(realtimeSessionLimit({ max_duration_seconds: 60, max_budget_usd: 0.5 }, parsePricing({ audio_second: '0.1' }))).to.deep.equal({ seconds: 5, reason: 'max_budget_reached' });
      expect(realtimeSessionLimit({ max_duration_seconds: 3, max_budget_usd: 0.5 }, parsePricing({ audio_second: '0.1' }))).to.deep.equal({ seconds: 3, reason: 'max_duration_reached' });
      expect(realtimeSessionLimit({ max_duration_seconds: 3, max_budget_usd: 0.5 }, parsePricing(undefined)).reason).to.equal('max_duration_reached');
    });
  });
});
