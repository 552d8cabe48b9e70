import { expect } from 'chai';
import type OpenAI from 'openai';
import { openAiClient, postJson, useSandbox, type ErrorEnvelope } from './helpers.js';
import { readPng } from './media-readers.js';

const MODEL = 'sandbox/image-1';

/** Images answer of both image routes (OpenAI's ImagesResponse shape). */
interface ImagesBody { created: number; data: Array<{ b64_json?: string; url?: string; revised_prompt?: string }>; size: string; output_format: string }

describe('e2e sandbox: images', () => {
  const sb = useSandbox(openAiClient);
  let sourcePng: Buffer;
  before(async () => {
    const source = await sb.client.images.generate({ model: MODEL, prompt: 'a source image', size: '48x40' as OpenAI.Images.ImageGenerateParams['size'] });
    sourcePng = Buffer.from(source.data![0]!.b64_json!, 'base64');
  });

  describe('POST /v1/images/generations (openai SDK images.generate)', () => {
    it('returns n decodable PNGs of the requested size as b64_json', async () => {
      const result = await sb.client.images.generate({ model: MODEL, prompt: 'a red fox in the snow', n: 2, size: '64x32' as OpenAI.Images.ImageGenerateParams['size'] });
      expect(result.created).to.be.a('number');
      expect(result.data).to.have.length(2);
      const pngs = result.data!.map((d) => Buffer.from(d.b64_json!, 'base64'));
      for (const png of pngs) {
        const info = readPng(png);
        expect(info.width).to.equal(64);
        expect(info.height).to.equal(32);
        expect(info.chunkTypes[0]).to.equal('IHDR');
      }
      expect(pngs[0]!.equals(pngs[1]!)).to.equal(false);
      expect((result as unknown as ImagesBody).size).to.equal('64x32');
    });

    it('is deterministic: same prompt and seed give the same bytes, another prompt other bytes', async () => {
      const body = { model: MODEL, prompt: 'a lighthouse', size: '32x32', seed: 7 };
      const a = await postJson<ImagesBody>(sb.gw, '/v1/images/generations', body);
      const b = await postJson<ImagesBody>(sb.gw, '/v1/images/generations', body);
      const c = await postJson<ImagesBody>(sb.gw, '/v1/images/generations', { ...body, prompt: 'a windmill' });
      expect(a.body.data[0]!.b64_json).to.equal(b.body.data[0]!.b64_json);
      expect(a.body.data[0]!.b64_json).to.not.equal(c.body.data[0]!.b64_json);
    });

    it('returns a data: URL when response_format is url', async () => {
      const result = await sb.client.images.generate({ model: MODEL, prompt: 'a blue square', size: '16x16' as OpenAI.Images.ImageGenerateParams['size'], response_format: 'url' });
      const url = result.data![0]!.url!;
      expect(url).to.match(/^data:image\/png;base64,/);
      expect(readPng(Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')).width).to.equal(16);
    });

    it('rejects n above 6 with 400 naming n', async () => {
      const res = await postJson<ErrorEnvelope>(sb.gw, '/v1/images/generations', { model: MODEL, prompt: 'x', n: 7 });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.include('n');
      expect(res.body.error.code).to.equal('validation_failed');
    });
  });

  describe('POST /v1/images/edits (JSON image references)', () => {
    it('edits an image given as a data: URI string, at the source size', async () => {
      const dataUrl = `data:image/png;base64,${sourcePng.toString('base64')}`;
      const res = await postJson<ImagesBody>(sb.gw, '/v1/images/edits', { model: MODEL, prompt: 'make it night', image: dataUrl });
      expect(res.status).to.equal(200);
      const info = readPng(Buffer.from(res.body.data[0]!.b64_json!, 'base64'));
      expect([info.width, info.height]).to.deep.equal([48, 40]);
      expect(res.body.size).to.equal('48x40');
    });

    it('accepts the {url} and {type: image_url, url} forms in images (1 to 5 items)', async () => {
      const url = `data:image/png;base64,${sourcePng.toString('base64')}`;
      const res = await postJson<ImagesBody>(sb.gw, '/v1/images/edits', {
        model: MODEL,
        prompt: 'blend them',
        images: [{ url }, { type: 'image_url', url }],
        size: '24x24',
      });
      expect(res.status).to.equal(200);
      const info = readPng(Buffer.from(res.body.data[0]!.b64_json!, 'base64'));
      expect([info.width, info.height]).to.deep.equal([24, 24]);
    });

    it('seeds the result with the source bytes: another source gives another image', async () => {
      const other = await postJson<ImagesBody>(sb.gw, '/v1/images/generations', { model: MODEL, prompt: 'another source', size: '48x40' });
      const edit = (png: string) => postJson<ImagesBody>(sb.gw, '/v1/images/edits', { model: MODEL, prompt: 'same edit', image: { url: `data:image/png;base64,${png}` } });
      const a = await edit(sourcePng.toString('base64'));
      const b = await edit(other.body.data[0]!.b64_json!);
      expect(a.body.data[0]!.b64_json).to.not.equal(b.body.data[0]!.b64_json);
    });

    it('answers 400 when neither image nor images is given, and when images has 6 items', async () => {
      const none = await postJson<ErrorEnvelope>(sb.gw, '/v1/images/edits', { model: MODEL, prompt: 'x' });
      expect(none.status).to.equal(400);
      expect(none.body.error.message).to.match(/image/);
      const url = 'data:image/png;base64,AAAA';
      const six = await postJson<ErrorEnvelope>(sb.gw, '/v1/images/edits', { model: MODEL, prompt: 'x', images: Array(6).fill(url) });
      expect(six.status).to.equal(400);
      expect(six.body.error.message).to.include('images');
    });

    it('answers 400 invalid_image for bytes that are not an image', async () => {
      const res = await postJson<ErrorEnvelope>(sb.gw, '/v1/images/edits', { model: MODEL, prompt: 'x', image: `data:image/png;base64,${Buffer.from('not an image').toString('base64')}` });
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_image');
    });
  });
});
