import { expect } from 'chai';
import { resolve } from 'node:path';
import { startJinaUpstream, type JinaUpstream } from '../kit/providers/jina.js';
import { startOpenAiUpstream, type OpenAiUpstream } from '../kit/providers/openai.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Issue 4's "done when": adding an OpenAI-compatible embeddings provider and a reranker takes
 * YAML alone. test/mapping/fixtures/openai-compatible/gateway.yaml declares both (type http,
 * operations mapped in YAML); here they serve real calls against fake upstreams.
 */
describe('mapping (providers added in YAML alone)', () => {
  let openai: OpenAiUpstream;
  let jina: JinaUpstream;
  let gw: TestGateway;

  before(async () => {
    openai = await startOpenAiUpstream({ key: 'acme-key' });
    jina = await startJinaUpstream({ key: 'rankr-key' });
    gw = await startGateway({
      configPath: resolve(process.cwd(), 'test/mapping/fixtures/openai-compatible/gateway.yaml'),
      env: { ACME_API_KEY: 'acme-key', ACME_BASE_URL: `${openai.url}/v1`, RANKR_API_KEY: 'rankr-key', RANKR_BASE_URL: `${jina.url}/v1` },
    });
  });
  after(async () => {
    await gw.close();
    await openai.close();
    await jina.close();
  });
  afterEach(() => expect([...openai.violations, ...jina.violations], 'requests a provider would have refused').to.deep.equal([]));

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, json: await res.json() as Record<string, unknown> };
  };

  it('serves embeddings from an OpenAI-compatible upstream', async () => {
    const res = await post('/v1/embeddings', { model: 'acme/embed-small', input: ['a', 'b'], output_dimension: 3 });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    expect(openai.requests.at(-1)!.json).to.deep.equal({ model: 'text-embedding-3-small', input: ['a', 'b'], dimensions: 3 });
    expect(openai.findings.at(-1)!.errors).to.deep.equal([]);
    expect(res.json.model).to.equal('acme/embed-small');
    expect((res.json.data as Array<{ embedding: number[] }>)[1]!.embedding).to.have.length(3);
  });

  it('serves rerank from a Jina/Cohere-style upstream', async () => {
    const res = await post('/v1/rerank', { model: 'rankr/rank-1', query: 'red apple', documents: ['blue sky', 'a red apple', 'red'], top_k: 2 });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    expect(jina.requests.at(-1)!.json).to.deep.equal({ model: 'jina-reranker-v2-base-multilingual', query: 'red apple', documents: ['blue sky', 'a red apple', 'red'], top_n: 2 });
    expect((res.json.results as Array<{ index: number }>).map((r) => r.index)).to.deep.equal([1, 2]);
    expect(res.json.model).to.equal('rankr/rank-1');
  });
});
