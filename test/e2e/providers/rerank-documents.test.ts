import { expect } from 'chai';
import { startProviderRig, type ProviderRig } from './setup.js';

interface RerankResult { index: number; relevance_score: number; document?: { text: string } }

/**
 * Issue 10.11: `return_documents: true` gives every result its document on every rerank
 * mapping and the sandbox (filled from the request when the upstream does not send it, as
 * Cohere v2 never does); without it no result carries one.
 */
describe('e2e/providers/rerank-documents', () => {
  let rig: ProviderRig;
  before(async () => { rig = await startProviderRig(); });
  after(async () => { await rig.close(); });
  afterEach(() => expect(rig.violations(), 'requests a provider would have refused').to.deep.equal([]));

  const documents = ['Paris is the capital of France.', 'Berlin has many bridges.', 'The capital of Italy is Rome.'];
  const models = ['cohere/rerank-v3.5', 'cohere/rerank-v4.0-pro', 'voyage/rerank-2.5', 'jina/jina-reranker-v2-base-multilingual', 'sandbox/rerank-1'];

  for (const model of models) {
    it(`${model}: return_documents true fills each result's document.text from the request`, async () => {
      const res = await rig.post('/v1/rerank', { model, query: 'capital of France', documents, return_documents: true, top_n: 2 });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(res.headers.get('x-gateway-dropped-params')).to.equal(null);
      const results = res.json.results as RerankResult[];
      expect(results).to.have.length(2);
      for (const r of results) expect(r.document, JSON.stringify(r)).to.deep.equal({ text: documents[r.index] });
    });

    it(`${model}: no document without return_documents, nor with false`, async () => {
      for (const extra of [{}, { return_documents: false }]) {
        const res = await rig.post('/v1/rerank', { model, query: 'capital of France', documents, ...extra });
        expect(res.status).to.equal(200);
        for (const r of res.json.results as RerankResult[]) expect(r).to.not.have.property('document');
      }
    });
  }

  it('never sends return_documents to Cohere v2, which has no such field', async () => {
    await rig.post('/v1/rerank', { model: 'cohere/rerank-v3.5', query: 'q', documents, return_documents: true });
    const last = rig.cohere.requests.filter((r) => r.path === '/v2/rerank').at(-1)!;
    expect(last.json).to.not.have.property('return_documents');
    expect(rig.cohere.findings.at(-1)!.errors).to.deep.equal([]);
  });
});
