/**
 * The gateway of the Bedrock suites: the repo gateway.yaml with its Bedrock providers pointed at
 * the fake Bedrock runtime (BEDROCK_RUNTIME_URL) and signing with keys the fake issued.
 */
import { startGateway, type TestGateway } from '../../helpers/gateway.js';
import { forgetSharedCredentials } from '../../../src/providers/auth/cached-credential.js';
import { startFakeBedrock, type FakeBedrock } from '../../kit/bedrock/fake-bedrock.js';

export const ACCESS_KEY_ID = 'AKIDBEDROCKTEST1';
export const SECRET = 'bedrock-test-secret-0123456789abcdefghij';

/** A booted fake and gateway, read inside tests. */
export interface BedrockHarness { fake: FakeBedrock; gw: TestGateway }

/**
 * Registers hooks that boot the fake Bedrock and a gateway signing with `env` on top of the test
 * keys; `prepare` runs between the two (the gateway starts fetching credentials as it boots).
 */
export function useBedrockGateway(env: Record<string, string> = {}, prepare?: (fake: FakeBedrock) => void): BedrockHarness {
  const h = {} as BedrockHarness;
  before(async () => {
    forgetSharedCredentials();
    h.fake = await startFakeBedrock();
    h.fake.issue(ACCESS_KEY_ID, SECRET);
    prepare?.(h.fake);
    h.gw = await startGateway({ env: { BEDROCK_RUNTIME_URL: h.fake.url, AWS_ACCESS_KEY_ID: ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET, AWS_REGION: 'us-east-1', ...env } });
  });
  beforeEach(() => h.fake.reset());
  after(async () => {
    await h.gw?.close();
    await h.fake?.close();
    forgetSharedCredentials();
  });
  return h;
}
