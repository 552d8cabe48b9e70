import { expect } from 'chai';
import { substituteScalar } from '../../src/config/env.js';
import { suggest } from '../../src/config/did-you-mean.js';

describe('config/env', () => {
  describe('#substituteScalar', () => {
    it('types a whole-scalar expression by its value', () => {
      expect(substituteScalar('${PORT:-8080}', {}).value).to.equal(8080);
      expect(substituteScalar('${PORT:-8080}', { PORT: '9000' }).value).to.equal(9000);
      expect(substituteScalar('${FLAG:-false}', {}).value).to.equal(false);
      expect(substituteScalar('${RATE:-0.5}', {}).value).to.equal(0.5);
    });
    it('keeps an expression inside text a string', () => {
      expect(substituteScalar('http://${HOST:-localhost}:${PORT:-80}/v1', { PORT: '81' }).value).to.equal('http://localhost:81/v1');
    });
    it('treats an empty variable as unset so the default applies', () => {
      expect(substituteScalar('${X:-fallback}', { X: '' }).value).to.equal('fallback');
    });
    it('reports a variable with no value and no default', () => {
      const r = substituteScalar('${MISSING}', {});
      expect(r.value).to.equal('');
      expect(r.missing).to.deep.equal(['MISSING']);
    });
    it('leaves plain strings alone', () => {
      expect(substituteScalar('plain $text', {})).to.deep.equal({ value: 'plain $text', missing: [], problems: [] });
    });
  });
});

describe('config/did-you-mean', () => {
  describe('#suggest', () => {
    it('finds the closest key for a typo', () => {
      expect(suggest('contxt_length', ['context_length', 'pricing'])).to.equal('context_length');
    });
    it('suggests nothing for an unrelated word', () => {
      expect(suggest('banana', ['context_length', 'pricing'])).to.equal(undefined);
    });
  });
});
