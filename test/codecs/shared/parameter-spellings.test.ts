import { expect } from 'chai';
import { findCapability, listsCapability, listSpellings, PARAMETER_SPELLINGS } from '../../../src/codecs/shared/parameter-spellings.js';

describe('codecs/shared/parameter-spellings', () => {
  describe('PARAMETER_SPELLINGS', () => {
    it('gives every spelling exactly one capability', () => {
      const all = Object.values(PARAMETER_SPELLINGS).flat();
      expect(new Set(all).size).to.equal(all.length);
    });
  });

  describe('#listsCapability', () => {
    const rows: Array<[string[], string, boolean]> = [
      [['response_format'], 'text', true],
      [['response_format'], 'output_config', true],
      [['text'], 'response_format', true],
      [['max_output_tokens'], 'max_tokens', true],
      [['max_completion_tokens'], 'max_output_tokens', true],
      [['reasoning'], 'reasoning_effort', true],
      [['reasoning_effort'], 'thinking', true],
      [['stop_sequences'], 'stop', true],
      [['temperature'], 'top_p', false],
      [['response_format'], 'tools', false],
      [['seed'], 'seed', true],
      [[], 'temperature', false],
      [['custom_knob'], 'custom_knob', true],
    ];
    for (const [listed, name, expected] of rows) {
      it(`${expected ? 'finds' : 'does not find'} ${name} in [${listed.join(', ')}]`, () => {
        expect(listsCapability(new Set(listed), name)).to.equal(expected);
      });
    }
  });

  describe('#listSpellings / #findCapability', () => {
    it('names a lone field by itself', () => {
      expect(listSpellings('custom_knob')).to.deep.equal(['custom_knob']);
      expect(findCapability('custom_knob')).to.equal(undefined);
    });
    it('maps each spelling to its canonical capability', () => {
      expect(findCapability('max_completion_tokens')).to.equal('max_output_tokens');
      expect(findCapability('text')).to.equal('response_format');
    });
  });
});
