import { expect } from 'chai';
import * as undici from 'undici';
import { Agent, errors } from '../../src/upstream/undici-core.js';

describe('upstream/undici-core', () => {
  it("is undici's own Agent and error classes (loaded without undici's index)", () => {
    expect(Agent).to.equal(undici.Agent);
    expect(errors).to.equal(undici.errors);
    expect(errors.HeadersTimeoutError).to.equal(undici.errors.HeadersTimeoutError);
  });

  it('gives an Agent the request API', () => {
    const agent = new Agent();
    const reference = new undici.Agent();
    expect(agent.request).to.be.a('function');
    expect(agent.request).to.equal(reference.request);
    return Promise.all([agent.close(), reference.close()]);
  });
});
