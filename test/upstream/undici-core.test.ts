import { expect } from 'chai';
import * as undici from 'undici';
import { createRequire } from 'node:module';
import { Agent, errors, parseHeaders } from '../../src/upstream/undici-core.js';

describe('upstream/undici-core', () => {
  it("is undici's own Agent and error classes (loaded without undici's index)", () => {
    expect(Agent).to.equal(undici.Agent);
    expect(errors).to.equal(undici.errors);
    expect(errors.HeadersTimeoutError).to.equal(undici.errors.HeadersTimeoutError);
  });

  it("is undici's own header parser (lower-cased names, repeats as arrays)", () => {
    const util = createRequire(import.meta.url)('undici/lib/core/util') as { parseHeaders: unknown };
    expect(parseHeaders).to.equal(util.parseHeaders);
    const raw = ['Content-Type', 'application/json', 'Set-Cookie', 'a=1', 'set-cookie', 'b=2'].map((s) => Buffer.from(s));
    expect(parseHeaders(raw)).to.deep.equal({ 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] });
  });
});
