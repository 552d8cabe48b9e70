import type { Platform } from './types.js';

/**
 * AWS Bedrock Runtime: `https://bedrock-runtime.<region>.amazonaws.com`, SigV4-signed. The slot
 * of the Bedrock work (issue 29, AWS part): Claude through InvokeModel reshapes the Messages
 * body here (`shaper`), and `auth.type: aws` (../auth/aws.ts) signs it.
 */
export const bedrockPlatform: Platform = {
  name: 'bedrock',
  types: ['anthropic-messages'],
  requires: ['region'],
  authTypes: ['aws'],
  defaultBaseUrl: (place) => (place.region ? `https://bedrock-runtime.${place.region}.amazonaws.com` : undefined),
  missing: (place, provider) => (place.region ? undefined : `providers.${provider}.region (e.g. from AWS_REGION)`),
  shaper: () => undefined,
};
