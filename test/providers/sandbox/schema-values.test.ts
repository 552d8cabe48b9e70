import { expect } from 'chai';
import { Ajv } from 'ajv';
import { buildSchemaValue, createValueSource } from '../../../src/providers/sandbox/schema-values.js';

const ajv = new Ajv({ strict: false });

function expectValid(schema: Record<string, unknown>, value: unknown): void {
  const validate = ajv.compile(schema);
  expect(validate(value), JSON.stringify(validate.errors)).to.equal(true);
}

describe('providers/sandbox/schema-values', () => {
  describe('#createValueSource', () => {
    it('prefers proper nouns (joined when adjacent) and skips stopwords, numbers and excluded names', () => {
      const source = createValueSource('Book a table in New York for 4 people using book_table', ['book_table']);
      expect(source.words[0]).to.equal('New York');
      expect(source.words).to.not.include('for');
      expect(source.words).to.not.include('book_table');
      expect(source.numbers).to.deep.equal([4]);
    });
  });

  describe('#buildSchemaValue', () => {
    it('builds values valid against nested, referenced and constrained schemas', () => {
      const schema = {
        type: 'object',
        $defs: { point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } }, required: ['x', 'y'] } },
        properties: {
          name: { type: 'string', minLength: 12, maxLength: 20 },
          email: { type: 'string', format: 'email' },
          site: { type: 'string', format: 'uri' },
          count: { type: 'integer', minimum: 10, maximum: 20, multipleOf: 5 },
          ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
          mode: { enum: ['fast', 'slow'] },
          kind: { const: 'fixed' },
          maybe: { type: ['string', 'null'] },
          choice: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
          origin: { $ref: '#/$defs/point' },
          tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 2, maxItems: 3, uniqueItems: true },
          both: { allOf: [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, { properties: { b: { type: 'boolean' } }, required: ['b'] }] },
        },
        required: ['name', 'email', 'site', 'count', 'ratio', 'mode', 'kind', 'maybe', 'choice', 'origin', 'tags', 'both'],
        additionalProperties: false,
      };
      const value = buildSchemaValue(schema, createValueSource('Send it to Alice at 7'));
      expectValid(schema, value);
      expect((value as Record<string, unknown>).mode).to.equal('fast');
    });
  });
});
