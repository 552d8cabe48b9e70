/**
 * `auth: {type: aws, role_arn, sts_url_env}`: the gateway's own keys only sign STS AssumeRole;
 * Bedrock calls are signed with the role's session credentials (the fake STS checks the
 * AssumeRole signature for service `sts`, the fake runtime the call's for `bedrock`).
 */
import { expect } from 'chai';
import OpenAI from 'openai';
import { resolve } from 'node:path';
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { forgetSharedCredentials } from '../../../src/providers/auth/cached-credential.js';
import { startFakeBedrock, type FakeBedrock } from '../../kit/bedrock/fake-bedrock.js';

describe('e2e bedrock: role_arn through STS', () => {
  let fake: FakeBedrock;
  let gw: TestGateway;
  before(async () => {
    forgetSharedCredentials();
    fake = await startFakeBedrock();
    fake.issue('AKIDGATEWAYUSER', 'gateway-user-secret-0123456789');
    gw = await startGateway({
      configPath: resolve(process.cwd(), 'test/fixtures/configs/bedrock-role/gateway.yaml'),
      env: { BEDROCK_RUNTIME_URL: fake.url, AWS_STS_URL: `${fake.url}/sts`, GATEWAY_AWS_KEY_ID: 'AKIDGATEWAYUSER', GATEWAY_AWS_SECRET: 'gateway-user-secret-0123456789' },
    });
  });
  after(async () => {
    await gw?.close();
    await fake?.close();
    forgetSharedCredentials();
  });

  it('assumes the role once, then signs every call with the role\'s session', async () => {
    const client = new OpenAI({ apiKey: gw.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    for (const text of ['one', 'two']) {
      const res = await client.chat.completions.create({ model: 'bedrock/nova-lite', messages: [{ role: 'user', content: text }] });
      expect(res.choices[0]!.message.content).to.equal('Hello from eu.amazon.nova-lite-v1:0.');
    }
    expect(fake.assumedRoles).to.deep.equal([{ roleArn: 'arn:aws:iam::123456789012:role/model-gateway', sessionName: 'model-gateway', signedBy: 'AKIDGATEWAYUSER', region: 'eu-west-1' }]);
    const session = fake.sessions[0]!.accessKeyId;
    expect(fake.requests.map((r) => [r.accessKeyId, r.region])).to.deep.equal([[session, 'eu-west-1'], [session, 'eu-west-1']]);
    expect(fake.refusals).to.deep.equal([]);
  });
});
