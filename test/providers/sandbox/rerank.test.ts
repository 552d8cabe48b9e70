import { expect } from 'chai';
import { sandboxProvider } from '../../../src/providers/sandbox/index.js';
import { createFakeCall } from './fakes.js';

const rerank = sandboxProvider.operations!['rerank']!;

interface RerankBody { object: string; model: string; results: Array<{ index: number; relevance_score: number; document?: { text: string } }>; usage: { total_tokens: number } }

async function callRerank(body: Record<string, unknown>): Promise<RerankBody> {
  const result = await rerank(createFakeCall('rerank', body));
  expect(result.kind).to.equal('json');
  return (result as { body: unknown }).body as RerankBody;
}

const documents = [
  'Bananas are yellow fruit rich in potassium.',
  'The capital of France is Paris, a city on the Seine.',
  'Paris hosted the Olympic Games; France celebrated.',
  'Rust is a systems programming language.',
];

describe('providers/sandbox/rerank', () => {
  describe('#rerankDocuments', () => {
    it('ranks the obviously relevant document first with scores in 0..1, best first', async () => {
      const body = await callRerank({ query: 'capital of France', documents });
      expect(body.object).to.equal('list');
      expect(body.model).to.equal('sandbox/test-1');
      expect(body.results[0]!.index).to.equal(1);
      expect(body.results[1]!.index).to.equal(2);
      const scores = body.results.map((r) => r.relevance_score);
      expect(scores).to.deep.equal([...scores].sort((a, b) => b - a));
      scores.forEach((s) => expect(s).to.be.within(0, 1));
      expect(body.results.find((r) => r.index === 3)!.relevance_score).to.equal(0);
      expect(body.results[0]).to.not.have.property('document');
      expect(body.usage.total_tokens).to.be.greaterThan(0);
    });

    it('limits results with top_k or top_n and returns documents when asked', async () => {
      const topK = await callRerank({ query: 'Paris', documents, top_k: 2, return_documents: true });
      expect(topK.results).to.have.length(2);
      expect(topK.results.map((r) => r.document!.text)).to.deep.equal(topK.results.map((r) => documents[r.index]));
      const topN = await callRerank({ query: 'programming language', documents, top_n: 1 });
      expect(topN.results).to.deep.equal([{ index: 3, relevance_score: topN.results[0]!.relevance_score }]);
    });
  });
});
