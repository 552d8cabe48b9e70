import { expect } from 'chai';
import { ACCEPT_CASES, POST_ROUTES, RULE_CASES, VALID_BODIES } from './cases.js';
import { compileRouteSchemas, createEngineAjv, errorsName, readRouteFiles } from './route-files.js';

/**
 * The validation table checked directly against the route schemas (no server): every rule case
 * is refused with an ajv error pointing at its field, every valid and edge body passes.
 */
describe('route schemas', () => {
  const files = readRouteFiles();
  const validators = compileRouteSchemas(files);

  describe('valid bodies', () => {
    it('covers every POST route', () => {
      expect([...validators.keys()].sort()).to.deep.equal([...POST_ROUTES].sort());
    });

    for (const route of POST_ROUTES) {
      it(`accepts the minimal body of ${route}`, () => {
        const validate = validators.get(route)!;
        expect(validate(VALID_BODIES[route]), JSON.stringify(validate.errors)).to.equal(true);
      });
    }
  });

  describe('rule cases', () => {
    for (const c of RULE_CASES) {
      it(`refuses ${c.route} when ${c.rule}, pointing at '${c.field}'`, () => {
        const validate = validators.get(c.route)!;
        expect(validate(c.body)).to.equal(false);
        expect(errorsName(validate.errors ?? [], c.field), JSON.stringify(validate.errors)).to.equal(true);
      });
    }
  });

  describe('edge cases', () => {
    for (const c of ACCEPT_CASES) {
      it(`accepts ${c.route} when ${c.rule}`, () => {
        const validate = validators.get(c.route)!;
        expect(validate(c.body), JSON.stringify(validate.errors)).to.equal(true);
      });
    }
  });

  describe('files multipart_schema', () => {
    const files2 = files.find((f) => f.name === 'files.yaml')!;
    const validate = createEngineAjv().compile(files2.data.multipart_schema as object);

    it('requires the file part and accepts the documented text parts', () => {
      expect(validate({})).to.equal(false);
      expect(validate({ file: {} })).to.equal(true);
      expect(validate({ file: {}, provider: 'sandbox', purpose: 'vision_reference' })).to.equal(true);
    });

    for (const [rule, fields, field] of [
      ['purpose is not allowed', { purpose: 'fine-tune' }, 'purpose'],
      ['provider is empty', { provider: '' }, 'provider'],
      ['an unknown part is present', { expires_after: '3600' }, 'expires_after'],
    ] as const) {
      it(`refuses when ${rule}`, () => {
        expect(validate(fields)).to.equal(false);
        expect(errorsName(validate.errors ?? [], field)).to.equal(true);
      });
    }
  });

  describe('base64 patterns', () => {
    it('checks a 20 MB payload without overflowing the regex stack', () => {
      const validate = validators.get('/v1/files')!;
      const big = Buffer.alloc(20 * 1024 * 1024, 7).toString('base64');
      expect(validate({ content_base64: big })).to.equal(true);
      expect(validate({ content_base64: `${big}!` })).to.equal(false);
    });
  });
});
