import { expect } from 'chai';
import { readWavSeconds, estimateAudioSeconds, MIN_AUDIO_BYTES_PER_SECOND } from '../../src/billing/audio-duration.js';
import { assertOperationFits, estimateOperation, measureOperationCost } from '../../src/billing/operation-cost.js';
import { estimateUnit, measureUnit, SPEECH_SECONDS_PER_CHAR } from '../../src/billing/operation-units.js';
import { parsePricing } from '../../src/billing/pricing.js';
import { isGatewayError } from '../../src/errors/gateway-error.js';
import { encodeWav } from '../../src/providers/sandbox/wav.js';

describe('billing/operation-units', () => {
  describe('estimateUnit', () => {
    it('takes images from n (default 1)', async () => {
      expect((await estimateUnit('image', { body: { n: 3 } })).quantity).to.equal(3);
      expect((await estimateUnit('image', { body: {} })).quantity).to.equal(1);
    });

    it('takes seconds from duration_seconds, as a bound from max_duration_seconds, else from text or audio', async () => {
      expect(await estimateUnit('audio_second', { body: { duration_seconds: 12 } })).to.deep.equal({ quantity: 12 });
      expect(await estimateUnit('audio_second', { body: { max_duration_seconds: 60 } })).to.deep.equal({ quantity: 60, bound: true });
      expect((await estimateUnit('audio_second', { body: { input: 'abcd' } })).quantity).to.be.closeTo(4 * SPEECH_SECONDS_PER_CHAR, 1e-9);
      const wav = encodeWav(new Float32Array(16000 * 2), {});
      expect((await estimateUnit('audio_second', { body: { audio_base64: wav.toString('base64') } })).quantity).to.be.closeTo(2, 0.01);
      const read = async (id: string) => (id === 'file-1' ? new Uint8Array(8000) : undefined);
      expect((await estimateUnit('audio_second', { body: { file_id: 'file-1' }, readFile: read })).quantity).to.equal(8000 / MIN_AUDIO_BYTES_PER_SECOND);
    });

    it('counts characters and search units from the request', async () => {
      expect((await estimateUnit('character', { body: { input: 'héllo' } })).quantity).to.equal(5);
      expect((await estimateUnit('search_unit', { body: { query: 'q', documents: new Array(150).fill('d') } })).quantity).to.equal(2);
    });
  });

  describe('measureUnit', () => {
    it('reads delivered quantities from the result before falling back to the request', () => {
      expect(measureUnit('image', { body: { data: [{}, {}] } }, { body: { n: 4 } }, { quantity: 4 })).to.equal(2);
      expect(measureUnit('audio_second', { body: { duration_seconds: 3.5 } }, { body: {} }, { quantity: 10 })).to.equal(3.5);
      expect(measureUnit('audio_second', { headers: { 'x-audio-duration-seconds': '1.25' } }, { body: {} }, { quantity: 10 })).to.equal(1.25);
      expect(measureUnit('audio_second', { body: {} }, { body: {} }, { quantity: 60, bound: true })).to.equal(0);
      expect(measureUnit('prompt', { body: { usage: { prompt_tokens: 7 } } }, { body: { input: 'x' } }, { quantity: 1 })).to.equal(7);
      expect(measureUnit('search_unit', { body: { meta: { billed_units: { search_units: 3 } } } }, { body: {} }, { quantity: 1 })).to.equal(3);
    });
  });
});

describe('billing/operation-cost', () => {
  const pricing = parsePricing({ image: '0.01', request: '0.001' });

  it('estimates and measures from the same unit table', async () => {
    const request = { body: { prompt: 'cat', n: 2 } };
    const estimate = await estimateOperation(pricing, request);
    expect(estimate.worstCaseUsd).to.be.closeTo(0.021, 1e-12);
    expect(measureOperationCost(pricing, estimate, { body: { data: [{}] } }, request)).to.be.closeTo(0.011, 1e-12);
  });

  it('refuses a worst case above max_budget_usd with 400 budget_exceeded', async () => {
    const estimate = await estimateOperation(pricing, { body: { prompt: 'cat', n: 3 } });
    expect(() => assertOperationFits(estimate, 0.031)).not.to.throw();
    try {
      assertOperationFits(estimate, 0.02);
      expect.fail('should refuse');
    } catch (e) {
      expect(isGatewayError(e) && e.code).to.equal('budget_exceeded');
      expect(isGatewayError(e) && e.details?.units).to.deep.equal({ image: 3, request: 1 });
    }
  });

  it('leaves bound units out of the call worst case (they are metered at run time)', async () => {
    const estimate = await estimateOperation(parsePricing({ audio_second: '0.01' }), { body: { max_duration_seconds: 3600, max_budget_usd: 0.5 } });
    expect(estimate.worstCaseUsd).to.equal(0);
  });
});

describe('billing/audio-duration', () => {
  it('reads WAV durations from the header and bounds other audio by size', () => {
    const wav = encodeWav(new Float32Array(8000), { ICMT: 'x' });
    expect(readWavSeconds(wav)).to.be.closeTo(0.5, 0.001);
    expect(readWavSeconds(new Uint8Array(100))).to.equal(undefined);
    expect(estimateAudioSeconds(new Uint8Array(40_000))).to.equal(10);
  });
});
