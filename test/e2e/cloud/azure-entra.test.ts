/**
 * Azure OpenAI with Microsoft Entra ID tokens end to end (issue 29): the v1 API
 * (`/openai/v1/chat/completions`, deployment name as `model`) with tokens from a fake authority
 * (client credentials over TLS, trusted by the gateway process through NODE_EXTRA_CA_CERTS), sent
 * to a fake Azure OpenAI that accepts only those. Official clients and the AI SDK on every text
 * surface, plain and streamed, with tools; token expiry mid-run; a refused secret.
 */
import { expect } from 'chai';
import OpenAI from 'openai';
import type { TestGateway } from '../../helpers/gateway.js';
import { startKitUpstream, type KitUpstream } from '../../kit/fake-upstream.js';
import { ANSWERS } from '../text/support/scenario.js';
import { aiSdkCells } from './support/ai-sdk-cells.js';
import { startAzureFront, type AzureFront } from './support/azure-front.js';
import { APP, expectClean, MODEL, spawnEntraGateway } from './support/azure-rig.js';
import { startEntraServer, type EntraServer } from './support/entra-server.js';
import { textCells } from './support/text-cells.js';

describe('e2e cloud: Azure OpenAI with Entra ID tokens', function () {
  this.timeout(60_000);
  let entra: EntraServer;
  let kit: KitUpstream;
  let front: AzureFront;
  let gw: TestGateway;
  before(async () => {
    entra = await startEntraServer(APP);
    kit = await startKitUpstream('openai', 'sk-kit-azure-0001', { dialects: ['openai-chat'] });
    front = await startAzureFront({ acceptsToken: (t) => entra.accepts(t), openai: kit });
    gw = await spawnEntraGateway(entra, front);
  });
  after(async () => {
    await gw?.close();
    await Promise.all([front?.close(), kit?.close(), entra?.close()]);
  });
  beforeEach(() => {
    front.reset();
    kit.reset();
  });

  const checks = (): void => {
    expectClean(front, kit, 'entra');
    expect(front.calls.at(-1)!.path).to.equal('/openai/v1/chat/completions');
    expect(front.calls.at(-1)!.body.model, 'the deployment name').to.equal('gpt-6.1-terra');
  };
  textCells(() => gw, MODEL, (...f) => kit.enqueue(...f), checks);
  aiSdkCells(() => gw, MODEL, (...f) => kit.enqueue(...f), checks);

  describe('afterwards', () => {
    it('got one token for every call (never per request) from the client-credentials grant', () => {
      expect(entra.refusals).to.deep.equal([]);
      expect(entra.unknown, 'requests the fake authority does not serve').to.deep.equal([]);
      expect(entra.issued).to.equal(1);
    });
  });
});

describe('e2e cloud: Azure OpenAI Entra token expiry', function () {
  this.timeout(60_000);

  it('refreshes a token that expires mid-run without a failed call', async () => {
    const entra = await startEntraServer(APP, 3);
    const kit = await startKitUpstream('openai', 'sk-kit-azure-0002', { dialects: ['openai-chat'] });
    const front = await startAzureFront({ acceptsToken: (t) => entra.accepts(t), openai: kit });
    const gw = await spawnEntraGateway(entra, front);
    try {
      const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0 });
      const started = Date.now();
      let calls = 0;
      while (Date.now() - started < 7000) {
        kit.enqueue({ fixture: 'text' });
        const out = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'What is the capital of France?' }] });
        expect(out.choices[0]!.message.content).to.equal(ANSWERS.text);
        calls++;
        await new Promise((r) => setTimeout(r, 150));
      }
      expect(calls).to.be.greaterThan(10);
      expect(entra.issued, 'tokens of 3 s over 7 s: refreshed, not fetched per call').to.be.within(2, 5);
      expect(front.unauthenticated, 'no call carried an expired token').to.equal(0);
    } finally {
      await gw.close();
      await Promise.all([front.close(), kit.close(), entra.close()]);
    }
  });

  it('answers 502 upstream_auth_error naming the source when Entra refuses the secret', async () => {
    const entra = await startEntraServer(APP);
    const kit = await startKitUpstream('openai', 'sk-kit-azure-0003', { dialects: ['openai-chat'] });
    const front = await startAzureFront({ acceptsToken: (t) => entra.accepts(t), openai: kit });
    const gw = await spawnEntraGateway(entra, front, { AZURE_CLIENT_SECRET: 'a-wrong-secret-value-42' });
    try {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).to.equal(502);
      const text = await res.text();
      const body = JSON.parse(text) as { error: { code: string; message: string } };
      expect(body.error.code).to.equal('upstream_auth_error');
      expect(body.error.message).to.include("Provider 'azure'").and.include('Entra service principal (AZURE_CLIENT_SECRET)');
      expect(text).to.not.include('a-wrong-secret-value-42');
      expect(front.calls).to.have.length(0);
    } finally {
      await gw.close();
      await Promise.all([front.close(), kit.close(), entra.close()]);
    }
  });
});
