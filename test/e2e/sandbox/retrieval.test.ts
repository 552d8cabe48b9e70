import { expect } from 'chai';
import { getJson, openAiClient, postJson, useSandbox, type ErrorEnvelope } from './helpers.js';

const EMBED = 'sandbox/embed-1';
const RERANK = 'sandbox/rerank-1';

function norm(v: readonly number[]): number {
  return Math.sqrt(v.reduce((s, x) => s + x * x, 0));
}
function cosine(a: readonly number[], b: readonly number[]): number {
  return a.reduce((s, x, i) => s + x * b[i]!, 0) / (norm(a) * norm(b));
}
/** Little-endian float32 bytes (OpenAI's base64 embedding encoding) -> numbers. */
function decodeFloat32(b64: string): number[] {
  const bytes = Buffer.from(b64, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

interface EmbeddingsBody { object: string; data: Array<{ index: number; embedding: number[] | string }>; model: string; usage: { prompt_tokens: number } }
interface RerankBody { results: Array<{ index: number; relevance_score: number; document?: { text: string } }> }

describe('e2e sandbox: retrieval', () => {
  const sb = useSandbox(openAiClient);

  describe('POST /v1/embeddings (openai SDK embeddings.create)', () => {
    it('returns unit vectors of the asked dimensions, closer for related texts (SDK decodes base64 by default)', async () => {
      const result = await sb.client.embeddings.create({ model: EMBED, input: ['the cat sat on the mat', 'a cat sat on a mat', 'quantum chromodynamics lecture'], dimensions: 64 });
      expect(result.object).to.equal('list');
      expect(result.data.map((d) => d.index)).to.deep.equal([0, 1, 2]);
      const [a, b, c] = result.data.map((d) => d.embedding);
      for (const v of [a!, b!, c!]) {
        expect(v).to.have.length(64);
        expect(norm(v)).to.be.closeTo(1, 1e-5);
      }
      expect(cosine(a!, b!)).to.be.greaterThan(cosine(a!, c!) + 0.2);
      expect(result.usage.prompt_tokens).to.be.greaterThan(0);
    });

    it('returns the same vector as floats and as base64 float32', async () => {
      const floats = await sb.client.embeddings.create({ model: EMBED, input: 'same text both ways', dimensions: 32, encoding_format: 'float' });
      const base64 = await postJson<EmbeddingsBody>(sb.gw, '/v1/embeddings', { model: EMBED, input: 'same text both ways', dimensions: 32, encoding_format: 'base64' });
      const raw = base64.body.data[0]!.embedding;
      expect(raw).to.be.a('string');
      const decoded = decodeFloat32(raw as string);
      expect(decoded).to.have.length(32);
      expect(norm(decoded)).to.be.closeTo(1, 1e-5);
      decoded.forEach((x, i) => expect(x).to.be.closeTo(floats.data[0]!.embedding[i]!, 1e-6));
    });

    it('is deterministic and uses the model default dimension when none is asked', async () => {
      const card = await getJson<{ architecture?: { default_dimensions?: number } }>(sb.gw, `/v1/models/${EMBED}`);
      const first = await sb.client.embeddings.create({ model: EMBED, input: 'stable', encoding_format: 'float' });
      const second = await sb.client.embeddings.create({ model: EMBED, input: 'stable', encoding_format: 'float' });
      expect(first.data[0]!.embedding).to.deep.equal(second.data[0]!.embedding);
      expect(first.data[0]!.embedding).to.have.length(card.body.architecture?.default_dimensions ?? 256);
    });

    it('honours output_dimensionality and output_dtype int8', async () => {
      const res = await postJson<EmbeddingsBody>(sb.gw, '/v1/embeddings', { model: EMBED, input: 'quantized', output_dimensionality: 16, output_dtype: 'int8' });
      expect(res.status).to.equal(200);
      const v = res.body.data[0]!.embedding as number[];
      expect(v).to.have.length(16);
      expect(v.every((x) => Number.isInteger(x) && x >= -128 && x <= 127)).to.equal(true);
      expect(v.some((x) => x !== 0)).to.equal(true);
    });

    it('rejects dimensions 0 with 400 naming the field', async () => {
      const res = await postJson<ErrorEnvelope>(sb.gw, '/v1/embeddings', { model: EMBED, input: 'x', dimensions: 0 });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.include('dimensions');
    });
  });

  describe('POST /v1/rerank', () => {
    const documents = ['Berlin is the capital of Germany.', 'Paris is the capital of France.', 'France exports wine.', 'Bananas are yellow.'];

    it('ranks the most relevant document first, scores descending', async () => {
      const res = await postJson<RerankBody>(sb.gw, '/v1/rerank', { model: RERANK, query: 'capital of France', documents });
      expect(res.status).to.equal(200);
      expect(res.body.results).to.have.length(4);
      expect(res.body.results[0]!.index).to.equal(1);
      const scores = res.body.results.map((r) => r.relevance_score);
      expect(scores).to.deep.equal([...scores].sort((a, b) => b - a));
      expect(res.body.results.at(-1)!.index).to.equal(3);
      expect(res.body.results.at(-1)!.relevance_score).to.equal(0);
    });

    it('limits with top_n and returns documents when asked', async () => {
      const res = await postJson<RerankBody>(sb.gw, '/v1/rerank', { model: RERANK, query: 'France', documents, top_n: 2, return_documents: true });
      expect(res.body.results).to.have.length(2);
      expect(res.body.results.map((r) => r.document!.text)).to.have.members([documents[1], documents[2]]);
    });

    it('rejects an unknown field (additionalProperties false) with 400', async () => {
      const res = await postJson<ErrorEnvelope>(sb.gw, '/v1/rerank', { model: RERANK, query: 'x', documents: ['y'], rank_fields: ['text'] });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.include('rank_fields');
    });
  });
});
