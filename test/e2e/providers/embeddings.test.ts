import { expect } from 'chai';
import OpenAI from 'openai';
import { fakeVector } from '../../kit/providers/media-bytes.js';
import { lastRequest, startProviderRig, type ProviderRig } from './setup.js';

/** The normalized embeddings answer every provider must give (same as the sandbox's). */
function expectNormalized(json: Record<string, unknown>, model: string, count: number): Array<{ embedding: unknown; index: number }> {
  expect(json.object).to.equal('list');
  expect(json.model).to.equal(model);
  const data = json.data as Array<{ object: string; embedding: unknown; index: number }>;
  expect(data).to.have.length(count);
  data.forEach((d, i) => expect(d).to.include({ object: 'embedding', index: i }));
  const usage = json.usage as Record<string, number>;
  expect(usage.prompt_tokens).to.be.a('number');
  expect(usage.total_tokens).to.be.a('number');
  return data;
}

describe('e2e/providers/embeddings', () => {
  let rig: ProviderRig;
  before(async () => { rig = await startProviderRig(); });
  after(async () => { await rig.close(); });

  describe('openai', () => {
    it('serves the official SDK (base64 by default) with the upstream model name and dimensions', async () => {
      const client = new OpenAI({ apiKey: rig.gw.key, baseURL: `${rig.gw.url}/v1` });
      const res = await client.embeddings.create({ model: 'openai/text-embedding-3-small', input: ['alpha beta', 'gamma'], dimensions: 8 });
      const upstream = lastRequest(rig.openai, '/v1/embeddings').json as Record<string, unknown>;
      expect(upstream).to.deep.equal({ model: 'text-embedding-3-small', input: ['alpha beta', 'gamma'], dimensions: 8, encoding_format: 'base64' });
      expect(res.model).to.equal('openai/text-embedding-3-small');
      expect(res.data[0]!.embedding).to.deep.equal(fakeVector('alpha beta', 8));
      expect(res.data[1]!.embedding).to.have.length(8);
      expect(rig.openai.findings.every((f) => f.errors.length === 0)).to.equal(true);
    });

    it('answers floats in the normalized shape when asked for float', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'openai/text-embedding-3-large', input: 'one', encoding_format: 'float', dimensions: 4 });
      expect(res.status).to.equal(200);
      const data = expectNormalized(res.json, 'openai/text-embedding-3-large', 1);
      expect(data[0]!.embedding).to.deep.equal(fakeVector('one', 4));
    });

    it('keeps the upstream status and message when the upstream refuses', async () => {
      rig.openai.enqueueFor('openai-media', { status: 429, retryAfter: '7', errorBody: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } });
      const res = await rig.post('/v1/embeddings', { model: 'openai/text-embedding-3-small', input: 'x' });
      expect(res.status).to.equal(429);
      expect(res.headers.get('retry-after')).to.equal('7');
      expect((res.json.error as Record<string, unknown>).message).to.contain('Rate limit reached');
      expect((res.json.error as Record<string, unknown>).code).to.equal('rate_limit_exceeded');
    });
  });

  describe('google', () => {
    it('batches inputs, maps output_dimensionality and input_type, and normalizes the answer', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'google/gemini-embedding-001', input: ['first text', 'second'], output_dimensionality: 16, input_type: 'query' });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      const upstream = lastRequest(rig.google, '/v1beta/models/gemini-embedding-001:batchEmbedContents');
      expect(upstream.headers['x-goog-api-key']).to.equal('g-test');
      expect(upstream.json).to.deep.equal({
        requests: [
          { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'first text' }] }, taskType: 'RETRIEVAL_QUERY', outputDimensionality: 16 },
          { model: 'models/gemini-embedding-001', content: { parts: [{ text: 'second' }] }, taskType: 'RETRIEVAL_QUERY', outputDimensionality: 16 },
        ],
      });
      const data = expectNormalized(res.json, 'google/gemini-embedding-001', 2);
      expect(data[1]!.embedding).to.deep.equal(fakeVector('second', 16));
    });

    it('maps `dimensions` the same way and sends a single string as one request', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'google/gemini-embedding-2', input: 'solo', dimensions: 8, input_type: 'document' });
      expect(res.status).to.equal(200);
      const upstream = lastRequest(rig.google, /batchEmbedContents$/).json as { requests: Array<Record<string, unknown>> };
      expect(upstream.requests).to.have.length(1);
      expect(upstream.requests[0]).to.include({ taskType: 'RETRIEVAL_DOCUMENT', outputDimensionality: 8 });
    });

    it('refuses dimension fields that disagree with a clear 400', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'google/gemini-embedding-001', input: 'x', dimensions: 8, output_dimensionality: 16 });
      expect(res.status).to.equal(400);
      expect((res.json.error as Record<string, unknown>).code).to.equal('conflicting_fields');
      expect((res.json.error as Record<string, unknown>).message).to.match(/dimensions, output_dimensionality disagree/);
    });
  });

  describe('cohere', () => {
    it('sends v2 embed with texts, input type, types and output_dimension; reads embeddings keyed by type', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'cohere/embed-v4.0', input: ['doc one', 'doc two'], dimensions: 256, input_type: 'query', output_dtype: 'int8' });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(lastRequest(rig.cohere, '/v2/embed').json).to.deep.equal({ model: 'embed-v4.0', texts: ['doc one', 'doc two'], input_type: 'search_query', embedding_types: ['int8'], output_dimension: 256 });
      const data = expectNormalized(res.json, 'cohere/embed-v4.0', 2);
      const vector = data[0]!.embedding as number[];
      expect(vector).to.have.length(256);
      expect(vector.every((v) => Number.isInteger(v) && v >= -128 && v <= 127)).to.equal(true);
      expect((res.json.usage as Record<string, number>).total_tokens).to.equal(6);
    });

    it('defaults input_type to search_document and asks for float', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'cohere/embed-v4.0', input: 'plain', truncation: false });
      expect(res.status).to.equal(200);
      expect(lastRequest(rig.cohere, '/v2/embed').json).to.deep.equal({ model: 'embed-v4.0', texts: ['plain'], input_type: 'search_document', embedding_types: ['float'], truncate: 'NONE' });
    });

    it('passes Cohere output_dimension limits on as the upstream 400', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'cohere/embed-v4.0', input: 'x', output_dimension: 300 });
      expect(res.status).to.equal(400);
      expect((res.json.error as Record<string, unknown>).message).to.contain('output_dimension must be one of');
    });
  });

  describe('voyage', () => {
    it('maps the dimension, dtype and input type fields and honours base64', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'voyage/voyage-4', input: ['v'], dimensions: 512, input_type: 'document', output_dtype: 'float', encoding_format: 'base64' });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(lastRequest(rig.voyage, '/v1/embeddings').json).to.deep.equal({ model: 'voyage-4', input: ['v'], input_type: 'document', output_dimension: 512, output_dtype: 'float', encoding_format: 'base64' });
      const data = expectNormalized(res.json, 'voyage/voyage-4', 1);
      const bytes = Buffer.from(data[0]!.embedding as string, 'base64');
      expect(bytes.length).to.equal(512 * 4);
      expect(bytes.readFloatLE(0)).to.equal(fakeVector('document:v', 512)[0]);
    });
  });

  describe('jina', () => {
    it('maps input_type to the task adapter and base64 to embedding_type', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'jina/jina-embeddings-v3', input: 'q', input_type: 'query', dimensions: 32, encoding_format: 'base64' });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(lastRequest(rig.jina, '/v1/embeddings').json).to.deep.equal({ model: 'jina-embeddings-v3', input: ['q'], task: 'retrieval.query', dimensions: 32, embedding_type: 'base64' });
      const data = expectNormalized(res.json, 'jina/jina-embeddings-v3', 1);
      expect(Buffer.from(data[0]!.embedding as string, 'base64').length).to.equal(32 * 4);
    });
  });

  describe('mistral', () => {
    it('calls the OpenAI-compatible endpoint with the upstream model and base64', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'mistral/mistral-embed', input: ['m1', 'm2'], encoding_format: 'base64' });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(lastRequest(rig.mistral, '/v1/embeddings').json).to.deep.equal({ model: 'mistral-embed', input: ['m1', 'm2'], encoding_format: 'base64' });
      expectNormalized(res.json, 'mistral/mistral-embed', 2);
    });
  });

  describe('sandbox', () => {
    it('answers the same normalized shape', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'sandbox/embed-1', input: ['a', 'b'], dimensions: 8 });
      expect(res.status).to.equal(200);
      expectNormalized(res.json, 'sandbox/embed-1', 2);
    });
  });

  describe('every fake', () => {
    it('received only valid requests (after all the calls above)', () => {
      const checked = [rig.openai, rig.google, rig.cohere, rig.voyage, rig.jina, rig.mistral].flatMap((fake) => fake.findings);
      expect(checked.length).to.be.greaterThan(8);
      // The Cohere 300-dimension request is the one deliberate upstream refusal.
      expect(checked.filter((f) => f.errors.length > 0 && !f.errors.some((e) => e.includes('output_dimension must be one of')))).to.deep.equal([]);
      // ... and the only request any provider refused (nothing unrouted, no wrong key).
      expect(rig.violations()).to.have.length(1);
      expect(rig.violations()[0]).to.match(/^cohere: POST \/v2\/embed: .*output_dimension must be one of/);
    });
  });
});
