import { expect } from 'chai';
import type { CompiledRoute } from '../../src/compile/runtime.js';
import { routePathMatchers, shadowedBy } from '../../src/compile/route-paths.js';

const route = (method: string, path: string): CompiledRoute => ({ spec: { method, path } }) as unknown as CompiledRoute;

describe('compile/route-paths: a parameter route never takes a static sibling path', () => {
  const routes = [
    route('GET', '/v1/responses/:id'),
    route('POST', '/v1/responses/compact'),
    route('POST', '/v1/responses'),
    route('GET', '/v1/files/:id'),
    route('GET', '/v1/files/:id/content'),
    route('GET', '/v1/models/:id'),
  ];

  it('the :id route leaves /v1/responses/compact (with or without a trailing slash) to its sibling', () => {
    const shadowed = shadowedBy('/v1/responses/:id', routes)!;
    expect(shadowed('/v1/responses/compact')).to.equal(true);
    expect(shadowed('/v1/responses/compact/')).to.equal(true);
    expect(shadowed('/v1/responses/resp_123')).to.equal(false);
  });

  it('routes without a static sibling need no guard', () => {
    expect(shadowedBy('/v1/files/:id', routes)).to.equal(undefined);
    expect(shadowedBy('/v1/models/:id', routes)).to.equal(undefined);
    expect(shadowedBy('/v1/responses/compact', routes)).to.equal(undefined);
  });

  it('405 decisions see only the static route for the static path', () => {
    const allowed = (path: string) => routePathMatchers(routes).filter((m) => m.matches(path)).map((m) => m.method);
    expect(allowed('/v1/responses/compact')).to.deep.equal(['POST']);
    expect(allowed('/v1/responses/resp_1')).to.deep.equal(['GET']);
    expect(allowed('/v1/files/f1/content')).to.deep.equal(['GET']);
  });
});
