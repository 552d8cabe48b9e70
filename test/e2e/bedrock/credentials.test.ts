/**
 * Credentials checked for real by the fake runtime: a wrong secret or a stale signature gets
 * AWS's 403 and the client a 502 `upstream_auth_error` (never the secret); session credentials
 * from the container endpoint that expire mid-run are refreshed in the background without a
 * failed call; throttling in one region fails traffic over to the other region's deployment.
 */
import { expect } from 'chai';
import OpenAI from 'openai';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import { ACCESS_KEY_ID, SECRET, useBedrockGateway } from './support.js';

const NOVA = 'bedrock/nova-pro';
const chat = (gw: { url: string; key: string }) => new OpenAI({ apiKey: gw.key, baseURL: `${gw.url}/v1`, maxRetries: 0 }).chat.completions;

/** The AWS variables of this process, cleared while a test points the SDK's chain elsewhere. */
const AWS_VARS = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_CONTAINER_CREDENTIALS_FULL_URI', 'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI', 'AWS_SHARED_CREDENTIALS_FILE', 'AWS_CONFIG_FILE'];

describe('e2e bedrock: credentials', () => {
  describe('the fake runtime verifies SigV4 itself', () => {
    const h = useBedrockGateway();

    async function signedCall(secret: string, signingDate: Date): Promise<{ status: number; errorType: string | null; body: unknown }> {
      const url = new URL(`${h.fake.url}/model/us.amazon.nova-pro-v1%3A0/converse`);
      const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] });
      const signer = new SignatureV4({ credentials: { accessKeyId: ACCESS_KEY_ID, secretAccessKey: secret }, region: 'us-east-1', service: 'bedrock', sha256: Sha256 });
      const signed = await signer.sign({ method: 'POST', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: url.pathname, headers: { host: url.host, 'content-type': 'application/json' }, body }, { signingDate });
      const res = await fetch(url, { method: 'POST', headers: signed.headers, body });
      return { status: res.status, errorType: res.headers.get('x-amzn-errortype'), body: await res.json() };
    }

    it('accepts a request signed with the issued secret', async () => {
      expect((await signedCall(SECRET, new Date())).status).to.equal(200);
    });

    it('answers AWS\'s 403 to a wrong secret and to a stale date', async () => {
      const wrong = await signedCall('not-the-secret', new Date());
      expect(wrong.status).to.equal(403);
      expect(wrong.errorType).to.match(/^InvalidSignatureException:/);
      expect(wrong.body).to.have.property('message').that.match(/signature we calculated does not match/);
      const stale = await signedCall(SECRET, new Date(Date.now() - 10 * 60_000));
      expect(stale.status).to.equal(403);
      expect(stale.body).to.have.property('message').that.match(/^Signature expired/);
    });
  });

  describe('a gateway holding a wrong secret', () => {
    const h = useBedrockGateway({ AWS_SECRET_ACCESS_KEY: 'wrong-secret-value-0123456789' });

    it('answers 502 upstream_auth_error naming the provider, without the secret', async () => {
      let failure: InstanceType<typeof OpenAI.APIError> | undefined;
      try {
        await chat(h.gw).create({ model: NOVA, messages: [{ role: 'user', content: 'hi' }] });
      } catch (e) {
        failure = e as InstanceType<typeof OpenAI.APIError>;
      }
      expect(failure?.status).to.equal(502);
      expect(failure?.code).to.equal('upstream_auth_error');
      expect(failure?.message).to.match(/Provider 'bedrock'/);
      expect(JSON.stringify(failure?.error)).to.not.include('wrong-secret-value');
      expect(h.fake.refusals[0]?.error).to.equal('InvalidSignatureException');
    });
  });

  describe('session credentials from the container endpoint', () => {
    const saved: Record<string, string | undefined> = {};
    const h = useBedrockGateway({ AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_CONTAINER_CREDENTIALS_FULL_URI: 'set-below' }, (fake) => {
      for (const v of AWS_VARS) { saved[v] = process.env[v]; delete process.env[v]; }
      // The SDK's chain reads this process's environment, before the gateway's first fetch.
      process.env.AWS_CONTAINER_CREDENTIALS_FULL_URI = fake.credentialsUrl;
      fake.sessionTtlMs = 4000;
    });
    after(() => {
      for (const v of AWS_VARS) { if (saved[v] === undefined) delete process.env[v]; else process.env[v] = saved[v]; }
    });

    it('are refreshed before they expire: a call after the first session expired still succeeds, signed with the new session', async function () {
      this.timeout(20_000);
      const first = await chat(h.gw).create({ model: NOVA, messages: [{ role: 'user', content: 'one' }] });
      expect(first.choices[0]!.message.content).to.match(/^Hello/);
      // Traffic keeps using the session after its fetch: that is what gets it refreshed ahead of time
      // (a credential nobody used since its fetch is fetched on its next use instead).
      await chat(h.gw).create({ model: NOVA, messages: [{ role: 'user', content: 'one again' }] });
      expect(h.fake.sessions.length).to.equal(1);
      await new Promise((resolve) => setTimeout(resolve, 4500));
      // The first session has expired by now (the fake refuses it); a background refresh replaced it.
      expect(h.fake.sessions.length).to.be.at.least(2);
      const second = await chat(h.gw).create({ model: NOVA, messages: [{ role: 'user', content: 'two' }] });
      expect(second.choices[0]!.message.content).to.match(/^Hello/);
      const [one, again, two] = h.fake.requests.map((r) => r.accessKeyId);
      expect([one, again]).to.deep.equal([h.fake.sessions[0]!.accessKeyId, h.fake.sessions[0]!.accessKeyId]);
      // Signed with a later session (the SDK's own memo may fetch more than one on a refresh).
      expect(h.fake.sessions.slice(1).map((s) => s.accessKeyId)).to.include(two);
      expect(h.fake.refusals).to.deep.equal([]);
    });
  });

  describe('region failover', () => {
    const h = useBedrockGateway({ GATEWAY_RETRY_ATTEMPTS: '2', GATEWAY_BREAKER_FAILURES: '2' });

    it('moves traffic to us-west-2 while us-east-1 throttles, every call answered', async () => {
      h.fake.throttle('us-east-1');
      for (let i = 0; i < 8; i++) {
        const res = await chat(h.gw).create({ model: NOVA, messages: [{ role: 'user', content: `call ${i}` }] });
        expect(res.choices[0]!.message.content).to.match(/^Hello/);
      }
      const byRegion = (region: string) => h.fake.requests.filter((r) => r.region === region).length;
      expect(byRegion('us-west-2')).to.equal(8);
      // The breaker of us-east-1 opened after its second throttled answer: later calls skip it.
      expect(byRegion('us-east-1')).to.be.at.most(2);
    });
  });
});
