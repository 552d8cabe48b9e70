import { expect } from 'chai';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { sandboxProvider } from '../../../src/providers/sandbox/index.js';
import type { OperationResult } from '../../../src/providers/types.js';
import { createFakeCall, type FakeCallOptions } from './fakes.js';

const embed = sandboxProvider.operations!['embeddings']!;

interface EmbeddingBody { object: string; model: string; data: Array<{ object: string; index: number; embedding: number[] | string }>; usage: { prompt_tokens: number; total_tokens: number } }

async function callEmbed(body: Record<string, unknown>, options?: FakeCallOptions): Promise<EmbeddingBody> {
  const result: OperationResult = await embed(createFakeCall('embeddings', body, options));
  expect(result.kind).to.equal('json');
  return (result as { body: unknown }).body as EmbeddingBody;
}

function norm(v: number[]): number { return Math.sqrt(v.reduce((s, x) => s + x * x, 0)); }
function cosine(a: number[], b: number[]): number { return a.reduce((s, x, i) => s + x * b[i]!, 0) / (norm(a) * norm(b)); }

async function expectInvalid(body: Record<string, unknown>, code: string): Promise<void> {
  try {
    await embed(createFakeCall('embeddings', body));
    expect.fail('should throw');
  } catch (e) {
    expect(e).to.be.instanceOf(GatewayError);
    expect((e as GatewayError).status).to.equal(400);
    expect((e as GatewayError).code).to.equal(code);
  }
}

describe('providers/sandbox/embeddings', () => {
  describe('#createEmbeddings', () => {
    it('returns one unit vector of the default 256 dimensions per input', async () => {
      const body = await callEmbed({ input: ['the cat sat', 'a dog ran'] });
      expect(body.object).to.equal('list');
      expect(body.model).to.equal('sandbox/test-1');
      expect(body.data.map((d) => d.index)).to.deep.equal([0, 1]);
      for (const item of body.data) {
        expect(item.object).to.equal('embedding');
        expect(item.embedding).to.have.length(256);
        expect(norm(item.embedding as number[])).to.be.closeTo(1, 1e-5);
      }
      expect(body.usage).to.deep.equal({ prompt_tokens: 6, total_tokens: 6 });
    });

    it('is deterministic and puts similar texts closer than unrelated ones', async () => {
      const body = await callEmbed({ input: ['the quick brown fox jumps', 'the quick brown fox leaps', 'quarterly revenue report 2024'] });
      const again = await callEmbed({ input: 'the quick brown fox jumps' });
      const [a, b, c] = body.data.map((d) => d.embedding as number[]);
      expect(again.data[0]!.embedding).to.deep.equal(a);
      expect(cosine(a!, b!)).to.be.greaterThan(cosine(a!, c!) + 0.3);
    });

    it('takes the dimension from dimensions, output_dimensionality, output_dimension or the model', async () => {
      expect((await callEmbed({ input: 'x', dimensions: 64 })).data[0]!.embedding).to.have.length(64);
      expect((await callEmbed({ input: 'x', output_dimensionality: 32 })).data[0]!.embedding).to.have.length(32);
      expect((await callEmbed({ input: 'x', output_dimension: 16 })).data[0]!.embedding).to.have.length(16);
      expect((await callEmbed({ input: 'x' }, { architecture: { default_dimensions: 48 } })).data[0]!.embedding).to.have.length(48);
    });

    it('accepts token-id arrays', async () => {
      const body = await callEmbed({ input: [[1, 2, 3], [4, 5]] });
      expect(body.data).to.have.length(2);
      expect(body.usage.prompt_tokens).to.equal(5);
    });

    it('decodes base64 as little-endian float32 equal to the float output', async () => {
      const floats = (await callEmbed({ input: 'hello world', dimensions: 32 })).data[0]!.embedding as number[];
      const encoded = (await callEmbed({ input: 'hello world', dimensions: 32, encoding_format: 'base64' })).data[0]!.embedding;
      expect(encoded).to.be.a('string');
      const bytes = Buffer.from(encoded as string, 'base64');
      expect(bytes.length).to.equal(32 * 4);
      const decoded = Array.from({ length: 32 }, (_, i) => bytes.readFloatLE(i * 4));
      expect(decoded).to.deep.equal(floats);
    });

    it('quantizes to int8 and uint8 in range and in step with the floats', async () => {
      const floats = (await callEmbed({ input: 'quantize me', dimensions: 64 })).data[0]!.embedding as number[];
      const int8 = (await callEmbed({ input: 'quantize me', dimensions: 64, output_dtype: 'int8' })).data[0]!.embedding as number[];
      const uint8 = (await callEmbed({ input: 'quantize me', dimensions: 64, output_dtype: 'uint8' })).data[0]!.embedding as number[];
      int8.forEach((v, i) => { expect(v).to.be.within(-128, 127); expect(Number.isInteger(v)).to.equal(true); expect(v).to.equal(Math.round(floats[i]! * 127)); });
      uint8.forEach((v) => expect(v).to.be.within(0, 255));
    });

    it('bit-packs binary and ubinary to dim/8 values matching the float signs', async () => {
      const floats = (await callEmbed({ input: 'pack bits', dimensions: 64 })).data[0]!.embedding as number[];
      const ubinary = (await callEmbed({ input: 'pack bits', dimensions: 64, output_dtype: 'ubinary' })).data[0]!.embedding as number[];
      const binary = (await callEmbed({ input: 'pack bits', dimensions: 64, output_dtype: 'binary' })).data[0]!.embedding as number[];
      expect(ubinary).to.have.length(8);
      floats.forEach((v, i) => expect(((ubinary[i >> 3]! >> (7 - (i & 7))) & 1) === 1).to.equal(v > 0));
      expect(binary).to.deep.equal(ubinary.map((b) => b - 128));
    });

    it('rejects binary dtypes when the dimension is not a multiple of 8', async () => {
      await expectInvalid({ input: 'x', dimensions: 12, output_dtype: 'binary' }, 'invalid_dimensions');
    });

    it('rejects bad inputs and disagreeing dimension fields', async () => {
      await expectInvalid({ input: [] }, 'invalid_input');
      await expectInvalid({ input: [1, 'a'] }, 'invalid_input');
      await expectInvalid({ input: 'x', dimensions: 8, output_dimension: 16 }, 'invalid_dimensions');
      await expectInvalid({ input: 'x', output_dtype: 'float16' }, 'invalid_output_dtype');
    });
  });
});
