/**
 * Boots the kit's text deployments and the real gateway (repo gateway.yaml unless GATEWAY_TEST_CONFIG says
 * otherwise) around a mocha `describe`, and defines `cell`: an `it` that also fails when any fake
 * received a request its provider would have rejected.
 */
import { expect } from 'chai';
import { startGateway, type TestGateway } from '../../../helpers/gateway.js';
import { startTextDeployments, type TextDeployments } from '../../../kit/text-deployments.js';

/** The running gateway and fakes of one describe block (set in `before`). */
export interface TextHarness { gw: TestGateway; fakes: TextDeployments }

/** Registers before/after hooks on the current describe and returns the harness they fill. */
export function useTextGateway(): TextHarness {
  const h = {} as TextHarness;
  before(async () => {
    h.fakes = await startTextDeployments();
    h.gw = await startGateway({ env: h.fakes.env });
  });
  after(async () => {
    await h.gw?.close();
    await h.fakes?.close();
  });
  beforeEach(() => h.fakes?.reset());
  return h;
}

/** An `it` whose body is followed by the check that every upstream request was valid. */
export function cell(h: TextHarness, title: string, body: () => Promise<void>): Mocha.Test {
  return it(title, async () => {
    await body();
    expect(h.fakes.violations(), 'requests a provider would have rejected').to.deep.equal([]);
  });
}
