import { expect } from 'chai';
import { lastRequest, startProviderRig, type ProviderRig } from './setup.js';

const documents = ['Paris is the capital of France', 'Berlin has many museums', 'The capital of Germany is Berlin', 'Bananas are yellow'];
const query = 'capital of Germany';

/** The normalized rerank answer: results best first with index and score, usage. */
function expectRanked(json: Record<string, unknown>, model: string): Array<{ index: number; relevance_score: number; document?: { text: string } }> {
  expect(json.object).to.equal('list');
  expect(json.model).to.equal(model);
  const results = json.results as Array<{ index: number; relevance_score: number; document?: { text: string } }>;
  expect(results.length).to.be.greaterThan(0);
  for (let i = 1; i < results.length; i++) expect(results[i - 1]!.relevance_score).to.be.at.least(results[i]!.relevance_score);
  expect(results[0]!.index).to.equal(2);
  expect(json.usage).to.be.an('object');
  return results;
}

describe('e2e/providers/rerank', () => {
  let rig: ProviderRig;
  before(async () => { rig = await startProviderRig(); });
  after(async () => { await rig.close(); });
  afterEach(() => expect(rig.violations(), 'requests a provider would have refused').to.deep.equal([]));

  describe('cohere', () => {
    it('maps top_k to top_n and reads v2 results and search units', async () => {
      const res = await rig.post('/v1/rerank', { model: 'cohere/rerank-v3.5', query, documents, top_k: 2 });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(lastRequest(rig.cohere, '/v2/rerank').json).to.deep.equal({ model: 'rerank-v3.5', query, documents, top_n: 2 });
      const results = expectRanked(res.json, 'cohere/rerank-v3.5');
      expect(results).to.have.length(2);
      expect(results[0]).to.have.all.keys('index', 'relevance_score');
      expect(res.json.usage).to.include({ search_units: 1 });
    });
  });

  describe('voyage', () => {
    it('maps top_n to top_k, reads results under data, and returns documents as {text}', async () => {
      const res = await rig.post('/v1/rerank', { model: 'voyage/rerank-2.5', query, documents, top_n: 3, return_documents: true });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(lastRequest(rig.voyage, '/v1/rerank').json).to.deep.equal({ model: 'rerank-2.5', query, documents, top_k: 3, return_documents: true });
      const results = expectRanked(res.json, 'voyage/rerank-2.5');
      expect(results).to.have.length(3);
      expect(results[0]!.document).to.deep.equal({ text: documents[2] });
      expect(res.json.usage).to.include({ total_tokens: 42 });
    });

    it('leaves document out when not asked', async () => {
      const res = await rig.post('/v1/rerank', { model: 'voyage/rerank-2.5', query, documents });
      const results = expectRanked(res.json, 'voyage/rerank-2.5');
      expect(results).to.have.length(4);
      expect(results.every((r) => r.document === undefined)).to.equal(true);
    });
  });

  describe('jina', () => {
    it('maps top_k to top_n and keeps {text} documents', async () => {
      const res = await rig.post('/v1/rerank', { model: 'jina/jina-reranker-v2-base-multilingual', query, documents, top_k: 1, return_documents: true });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(lastRequest(rig.jina, '/v1/rerank').json).to.deep.equal({ model: 'jina-reranker-v2-base-multilingual', query, documents, top_n: 1, return_documents: true });
      const results = expectRanked(res.json, 'jina/jina-reranker-v2-base-multilingual');
      expect(results).to.deep.equal([{ index: 2, relevance_score: results[0]!.relevance_score, document: { text: documents[2] } }]);
    });
  });

  describe('sandbox', () => {
    it('answers the same normalized shape', async () => {
      const res = await rig.post('/v1/rerank', { model: 'sandbox/rerank-1', query, documents, top_k: 2 });
      expect(res.status).to.equal(200);
      expectRanked(res.json, 'sandbox/rerank-1');
    });
  });

  it('refuses a client that sends top_k and top_n that disagree', async () => {
    const res = await rig.post('/v1/rerank', { model: 'jina/jina-reranker-v2-base-multilingual', query, documents, top_k: 1, top_n: 2 });
    expect(res.status).to.equal(400);
    expect((res.json.error as Record<string, unknown>).code).to.equal('conflicting_fields');
  });
});
