import { expect } from 'chai';
import OpenAI from 'openai';
import { fakeVector } from '../../kit/providers/media-bytes.js';
import { lastRequest, startProviderRig, type ProviderRig } from './setup.js';

/**
 * The mappings' own handling of SPEC 4.12 fields, with nothing dropped by the catalog first
 * (every model accepts every parameter here): what the upstream can honour is mapped, what it
 * cannot is refused with a clear 400 before any upstream call, and base64 is always honoured.
 */
describe('e2e/providers/mapped-parameters (catalog drops nothing)', () => {
  let rig: ProviderRig;
  before(async () => { rig = await startProviderRig({}, { permissive: true }); });
  after(async () => { await rig.close(); });
  afterEach(() => expect(rig.violations(), 'requests a provider would have refused').to.deep.equal([]));

  async function refused(fake: { requests: unknown[] }, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const before = fake.requests.length;
    const res = await rig.post('/v1/embeddings', body);
    expect(res.status, JSON.stringify(res.json)).to.equal(400);
    expect(fake.requests.length, 'no upstream call').to.equal(before);
    return res.json.error as Record<string, unknown>;
  }

  describe('official SDK (base64 by default) on providers without base64', () => {
    for (const [model, text, dims] of [['google/gemini-embedding-001', 'gemini words', 8], ['cohere/embed-v4.0', 'cohere words', 256]] as const) {
      it(`decodes ${model} vectors the gateway encoded`, async () => {
        const client = new OpenAI({ apiKey: rig.gw.key, baseURL: `${rig.gw.url}/v1` });
        const res = await client.embeddings.create({ model, input: text, dimensions: dims });
        expect(res.data[0]!.embedding).to.deep.equal(fakeVector(text, dims));
      });
    }
  });

  describe('openai', () => {
    it('maps every dimension field to dimensions', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'openai/text-embedding-3-small', input: 'x', output_dimension: 12, encoding_format: 'float' });
      expect(res.status).to.equal(200);
      expect(lastRequest(rig.openai, '/v1/embeddings').json).to.deep.equal({ model: 'text-embedding-3-small', input: 'x', dimensions: 12, encoding_format: 'float' });
    });

    it('refuses input_type and non-float output_dtype, accepts float', async () => {
      expect(await refused(rig.openai, { model: 'openai/text-embedding-3-small', input: 'x', input_type: 'query' })).to.include({ code: 'unsupported_parameter' });
      const dtype = await refused(rig.openai, { model: 'openai/text-embedding-3-small', input: 'x', output_dtype: 'int8' });
      expect(dtype).to.include({ code: 'unsupported_value' });
      expect(dtype.message).to.equal("Model 'openai/text-embedding-3-small' does not support output_dtype 'int8'; supported: float.");
      const ok = await rig.post('/v1/embeddings', { model: 'openai/text-embedding-3-small', input: 'x', output_dtype: 'float', truncation: true });
      expect(ok.status).to.equal(200);
      expect(lastRequest(rig.openai, '/v1/embeddings').json).to.deep.equal({ model: 'text-embedding-3-small', input: 'x' });
    });
  });

  describe('google', () => {
    it('refuses output_dtype other than float and unknown encodings', async () => {
      expect(await refused(rig.google, { model: 'google/gemini-embedding-001', input: 'x', output_dtype: 'binary' })).to.include({ code: 'unsupported_value' });
      expect(await refused(rig.google, { model: 'google/gemini-embedding-001', input: 'x', encoding_format: 'hex' })).to.include({ code: 'unsupported_value' });
    });
  });

  describe('cohere', () => {
    it('refuses base64 for integer dtypes', async () => {
      const error = await refused(rig.cohere, { model: 'cohere/embed-v4.0', input: 'x', output_dtype: 'int8', encoding_format: 'base64' });
      expect(error).to.include({ code: 'unsupported_parameter' });
      expect(error.message).to.contain('encoding_format base64 is for float embeddings');
    });
  });

  describe('mistral', () => {
    it('maps dimensions to output_dimension and refuses input_type', async () => {
      const res = await rig.post('/v1/embeddings', { model: 'mistral/mistral-embed', input: 'x', dimensions: 64 });
      expect(res.status).to.equal(200);
      expect(lastRequest(rig.mistral, '/v1/embeddings').json).to.deep.equal({ model: 'mistral-embed', input: 'x', output_dimension: 64 });
      expect(await refused(rig.mistral, { model: 'mistral/mistral-embed', input: 'x', input_type: 'document' })).to.include({ code: 'unsupported_parameter' });
    });
  });

  describe('images', () => {
    it('sends only OpenAI image fields (SPEC-only ones stay behind)', async () => {
      const res = await rig.post('/v1/images/generations', { model: 'openai/gpt-image-2', prompt: 'p', aspect_ratio: '1:1', resolution: '1k', seed: 3, creativity: 'raw', response_format: 'b64_json' });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(lastRequest(rig.openai, '/v1/images/generations').json).to.deep.equal({ model: 'gpt-image-2', prompt: 'p', response_format: 'b64_json' });
      expect(rig.openai.findings.at(-1)!.errors).to.deep.equal([]);
    });

    it('maps n and seed for Gemini image output', async () => {
      const res = await rig.post('/v1/images/generations', { model: 'google/gemini-nano-banana-2.1', prompt: 'p', n: 2, seed: 42 });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect((lastRequest(rig.google, /generateContent$/).json as { generationConfig: Record<string, unknown> }).generationConfig).to.deep.include({ candidateCount: 2, seed: 42 });
    });
  });
});
