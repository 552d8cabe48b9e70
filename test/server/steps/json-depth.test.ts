import { expect } from 'chai';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../../src/server/steps/json-depth.js';

/** `depth` levels of objects (`{"a":{"a":...}}`) or arrays, parsed as a body would be. */
function nested(depth: number, open: string, close: string): unknown {
  return JSON.parse(open.repeat(depth) + close.repeat(depth));
}

describe('server/steps/json-depth', () => {
  describe('#exceedsJsonDepth', () => {
    const table: Array<[string, unknown, number, boolean]> = [
      ['a scalar', 'text', 1, false],
      ['null', null, 1, false],
      ['an empty object at limit 1', {}, 1, false],
      ['an object in an object at limit 1', { a: {} }, 1, true],
      ['an array in an array at limit 1', [[]], 1, true],
      ['scalars only below the limit', { a: 1, b: 'x', c: [1, 2, 3] }, 2, false],
      ['a deep branch after shallow ones', { a: 1, b: {}, c: [{}, { d: { e: {} } }] }, 3, true],
      ['the same branch at its own depth', { a: 1, b: {}, c: [{}, { d: { e: {} } }] }, 5, false],
      ['a key named __proto__ that nests', JSON.parse('{"__proto__":{"a":{}}}'), 2, true],
    ];
    for (const [name, value, limit, expected] of table) {
      it(`${expected ? 'refuses' : 'accepts'} ${name}`, () => expect(exceedsJsonDepth(value, limit)).to.equal(expected));
    }
    it('accepts objects and arrays exactly MAX_JSON_DEPTH deep and refuses one level more', () => {
      const objects = (depth: number) => JSON.parse('{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1));
      expect(exceedsJsonDepth(objects(MAX_JSON_DEPTH))).to.equal(false);
      expect(exceedsJsonDepth(objects(MAX_JSON_DEPTH + 1))).to.equal(true);
      expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH, '[', ']'))).to.equal(false);
      expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1, '[', ']'))).to.equal(true);
    });
    it('refuses a body nested far past the stack without overflowing it', () => {
      expect(exceedsJsonDepth(nested(200_000, '[', ']'))).to.equal(true);
    });
  });
});
