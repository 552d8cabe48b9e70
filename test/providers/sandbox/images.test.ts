import { expect } from 'chai';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { sandboxProvider } from '../../../src/providers/sandbox/index.js';
import { encodePng } from '../../../src/providers/sandbox/png.js';
import { createFakeCall, MemoryFileStore, type FakeCallOptions } from './fakes.js';
import { readPng } from './png-reader.js';

const generate = sandboxProvider.operations!['images.generations']!;
const edit = sandboxProvider.operations!['images.edits']!;

interface ImagesBody { created: number; data: Array<{ b64_json?: string; url?: string; revised_prompt: string }>; output_format: string; size: string }

async function run(op: typeof generate, body: Record<string, unknown>, options?: FakeCallOptions): Promise<ImagesBody> {
  const result = await op(createFakeCall('images', body, options));
  expect(result.kind).to.equal('json');
  return (result as { body: unknown }).body as ImagesBody;
}

function pngOf(item: ImagesBody['data'][number]): Buffer {
  return Buffer.from(item.b64_json ?? item.url!.replace(/^data:image\/png;base64,/, ''), 'base64');
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  try {
    await promise;
    expect.fail('should throw');
  } catch (e) {
    expect(e).to.be.instanceOf(GatewayError);
    expect((e as GatewayError).code).to.equal(code);
    expect((e as GatewayError).status).to.equal(400);
  }
}

const sourcePng = Buffer.from(encodePng(40, 20, 3, new Uint8Array(40 * 20 * 3).fill(200)));

describe('providers/sandbox/images', () => {
  describe('#generateImages', () => {
    it('returns valid PNGs: signature, IHDR size, CRCs and inflatable rows', async () => {
      const body = await run(generate, { prompt: 'a red fox', size: '512x256', n: 2 });
      expect(body.output_format).to.equal('png');
      expect(body.size).to.equal('512x256');
      expect(body.data).to.have.length(2);
      for (const item of body.data) {
        const png = readPng(pngOf(item));
        expect(png.crcValid).to.equal(true);
        expect(png.chunks).to.deep.equal(['IHDR', 'IDAT', 'IEND']);
        expect([png.width, png.height]).to.deep.equal([256, 128]);
        expect(png.colorType).to.equal(2);
        expect(png.bitDepth).to.equal(8);
        expect(png.raw.length).to.equal((png.width * 3 + 1) * png.height);
        expect(item.revised_prompt).to.equal('a red fox');
      }
      expect(body.data[0]!.b64_json).to.not.equal(body.data[1]!.b64_json);
    });

    it('is deterministic per prompt and seed', async () => {
      const a = await run(generate, { prompt: 'same', seed: 7 });
      const b = await run(generate, { prompt: 'same', seed: 7 });
      const c = await run(generate, { prompt: 'same', seed: 8 });
      expect(a.data[0]!.b64_json).to.equal(b.data[0]!.b64_json);
      expect(a.data[0]!.b64_json).to.not.equal(c.data[0]!.b64_json);
    });

    it('sizes from aspect_ratio and resolution, and returns data URLs when response_format is url', async () => {
      const body = await run(generate, { prompt: 'wide', aspect_ratio: '16:9', resolution: '2k', response_format: 'url', background: 'transparent' });
      expect(body.size).to.equal('2048x1152');
      expect(body.data[0]!.url).to.match(/^data:image\/png;base64,/);
      const png = readPng(pngOf(body.data[0]!));
      expect([png.width, png.height]).to.deep.equal([256, 144]);
      expect(png.colorType).to.equal(6);
      expect(png.raw.length).to.equal((256 * 4 + 1) * 144);
    });

    it('rejects a malformed size', async () => {
      await expectCode(generate(createFakeCall('images.generations', { prompt: 'x', size: 'big' })), 'invalid_size');
    });
  });

  describe('#editImages', () => {
    it('accepts the three image input forms and keeps the source size', async () => {
      const dataUrl = `data:image/png;base64,${sourcePng.toString('base64')}`;
      for (const image of [dataUrl, { url: dataUrl }, { type: 'image_url', url: dataUrl }]) {
        const body = await run(edit, { prompt: 'make it blue', image });
        expect(body.size).to.equal('40x20');
        const png = readPng(pngOf(body.data[0]!));
        expect([png.width, png.height]).to.deep.equal([40, 20]);
        expect(png.crcValid).to.equal(true);
      }
    });

    it('mixes the source image bytes into the output', async () => {
      const other = Buffer.from(encodePng(40, 20, 3, new Uint8Array(40 * 20 * 3).fill(10)));
      const a = await run(edit, { prompt: 'p', images: [`data:image/png;base64,${sourcePng.toString('base64')}`] });
      const b = await run(edit, { prompt: 'p', images: [`data:image/png;base64,${other.toString('base64')}`] });
      expect(a.data[0]!.b64_json).to.not.equal(b.data[0]!.b64_json);
    });

    it('loads file ids of the owner and http URLs through fetchMedia', async () => {
      const files = new MemoryFileStore();
      const record = await files.put({ filename: 's.png', mime_type: 'image/png', purpose: 'vision_reference', provider: 'sandbox', owner: 'owner-a' }, sourcePng);
      const media = { 'https://example.com/s.png': { bytes: sourcePng, contentType: 'image/png' } };
      const fromFile = await run(edit, { prompt: 'p', image: { file_id: record.id } }, { files });
      const fromUrl = await run(edit, { prompt: 'p', image: 'https://example.com/s.png' }, { media });
      expect(fromFile.data[0]!.b64_json).to.equal(fromUrl.data[0]!.b64_json);
      await expectCode(edit(createFakeCall('images.edits', { prompt: 'p', image: { file_id: record.id } }, { files, owner: 'owner-b' })), 'file_not_found');
      await expectCode(generate(createFakeCall('images.generations', { prompt: 'p', file_id: 'file-404' }, { files })), 'file_not_found');
    });

    it('rejects bytes that are not an image and a missing image', async () => {
      await expectCode(edit(createFakeCall('images.edits', { prompt: 'p', image: 'data:text/plain;base64,aGVsbG8=' })), 'invalid_image');
      await expectCode(edit(createFakeCall('images.edits', { prompt: 'p' })), 'missing_image');
      await expectCode(edit(createFakeCall('images.edits', { prompt: 'p', image: 'ftp://x/y.png' })), 'invalid_url');
    });
  });
});
