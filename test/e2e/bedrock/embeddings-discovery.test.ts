/**
 * Titan embeddings through InvokeModel, declared in YAML (the mapping vocabulary with the
 * provider's `auth: {type: aws}`), reached by the official openai client; and the Bedrock
 * providers listed as not configured, with what they need, when no AWS credentials exist.
 */
import { expect } from 'chai';
import OpenAI from 'openai';
import { resolve } from 'node:path';
import { compile } from '../../../src/compile/compile.js';
import { loadProject } from '../../../src/config/load-project.js';
import { useBedrockGateway } from './support.js';

describe('e2e bedrock: embeddings and discovery', () => {
  describe('Titan embeddings', () => {
    const h = useBedrockGateway();

    it('embeds one input through a signed InvokeModel call, with the requested dimensions and usage', async () => {
      const client = new OpenAI({ apiKey: h.gw.key, baseURL: `${h.gw.url}/v1`, maxRetries: 0 });
      const res = await client.embeddings.create({ model: 'bedrock/titan-embed-text-v2', input: 'hello bedrock world', dimensions: 256 });
      expect(res.data).to.have.length(1);
      expect(res.data[0]!.embedding).to.have.length(256);
      expect(res.data[0]!.embedding[1]).to.be.closeTo(0.1, 1e-6);
      expect(res.usage.prompt_tokens).to.equal(3);
      const sent = h.fake.requests[0]!;
      expect(sent.operation).to.equal('invoke');
      expect(sent.modelId).to.equal('amazon.titan-embed-text-v2:0');
      expect(sent.body).to.deep.equal({ inputText: 'hello bedrock world', dimensions: 256, normalize: true, embeddingTypes: ['float'] });
      expect(h.fake.refusals).to.deep.equal([]);
    });
  });

  describe('without AWS credentials', () => {
    const compiled = (env: Record<string, string>) => compile(loadProject(resolve(process.cwd(), 'gateway.yaml'), env), env).runtime!;

    it('lists the Bedrock providers as not configured, naming what they need', () => {
      const runtime = compiled({ HOME: '/nonexistent-home' });
      const bedrock = runtime.providers.get('bedrock')!;
      expect(bedrock.missing).to.match(/AWS credentials \(AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, or a container\/instance role\)/);
      expect(runtime.providers.get('bedrock-claude')!.missing).to.equal(bedrock.missing);
    });

    it('are configured once keys are in the environment (nothing is fetched at startup)', () => {
      const runtime = compiled({ HOME: '/nonexistent-home', AWS_ACCESS_KEY_ID: 'AKIDX', AWS_SECRET_ACCESS_KEY: 'secret' });
      const bedrock = runtime.providers.get('bedrock')!;
      expect(bedrock.missing).to.equal(undefined);
      expect(bedrock.upstreams.map((u) => [u.name, u.baseUrl])).to.deep.equal([['use1', 'https://bedrock-runtime.us-east-1.amazonaws.com'], ['usw2', 'https://bedrock-runtime.us-west-2.amazonaws.com']]);
    });
  });
});
