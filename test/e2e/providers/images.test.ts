import { expect } from 'chai';
import OpenAI from 'openai';
import { startMediaHost, type MediaHost } from '../../kit/providers/media-host.js';
import { makePng } from '../../kit/providers/media-bytes.js';
import { TEST_KEY } from '../../helpers/gateway.js';
import { lastRequest, startProviderRig, type ProviderRig } from './setup.js';

const OTHER_KEY = 'other-key-0123456789';

describe('e2e/providers/images', () => {
  let rig: ProviderRig;
  let media: MediaHost;
  const red = makePng(2, 2, [255, 0, 0]);
  const green = makePng(3, 1, [0, 255, 0]);
  const blue = makePng(1, 3, [0, 0, 255]);

  before(async () => {
    // Any other path is a 404 (the unreachable-URL test below).
    media = await startMediaHost({ '/green.png': () => ({ headers: { 'content-type': 'image/png' }, body: green }) });
    // Loopback media server: this gateway is allowed to fetch private addresses (tests only).
    rig = await startProviderRig({ GATEWAY_FETCH_ALLOW_PRIVATE: 'true', GATEWAY_API_KEYS: `${TEST_KEY},${OTHER_KEY}` });
  });
  after(async () => {
    await rig.close();
    await media.close();
  });

  async function upload(bytes: Buffer, key = TEST_KEY): Promise<string> {
    const res = await rig.post('/v1/files', { content_base64: bytes.toString('base64'), filename: 'ref.png', mime_type: 'image/png' }, key);
    expect(res.status).to.equal(200);
    return String(res.json.id);
  }

  describe('openai generations', () => {
    it('serves the official SDK and forwards the image controls', async () => {
      const client = new OpenAI({ apiKey: rig.gw.key, baseURL: `${rig.gw.url}/v1` });
      const res = await client.images.generate({ model: 'openai/gpt-image-2', prompt: 'a red square', n: 2, size: '1024x1024', quality: 'low', background: 'transparent', output_format: 'webp' });
      expect(lastRequest(rig.openai, '/v1/images/generations').json).to.deep.equal({ model: 'gpt-image-2', prompt: 'a red square', n: 2, size: '1024x1024', quality: 'low', background: 'transparent', output_format: 'webp' });
      expect(res.data).to.have.length(2);
      expect(Buffer.from(res.data![0]!.b64_json!, 'base64').subarray(1, 4).toString('latin1')).to.equal('PNG');
      expect(rig.openai.findings.at(-1)!.errors).to.deep.equal([]);
    });

    it('refuses reference images with a clear 400 naming the edits endpoint', async () => {
      const res = await rig.post('/v1/images/generations', { model: 'openai/gpt-image-2', prompt: 'p', image_url: 'https://example.com/a.png' });
      expect(res.status).to.equal(400);
      expect((res.json.error as Record<string, unknown>).code).to.equal('unsupported_parameter');
      expect((res.json.error as Record<string, unknown>).message).to.contain('/v1/images/edits');
    });
  });

  describe('openai edits', () => {
    it('sends every referenced image as a multipart image[] part: data URL, fetched URL and file id', async () => {
      const fileId = await upload(blue);
      const res = await rig.post('/v1/images/edits', {
        model: 'openai/gpt-image-2',
        prompt: 'make it pop',
        image: `data:image/png;base64,${red.toString('base64')}`,
        images: [{ url: `${media.url}/green.png` }],
        file_id: fileId,
        n: 1,
        quality: 'high',
      });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      const upstream = lastRequest(rig.openai, '/v1/images/edits');
      expect(String(upstream.headers['content-type'])).to.match(/^multipart\/form-data; boundary=/);
      expect(upstream.form!.fields).to.deep.equal({ model: ['gpt-image-2'], prompt: ['make it pop'], n: ['1'], quality: ['high'] });
      const images = upstream.form!.files;
      expect(images.map((f) => f.field)).to.deep.equal(['image[]', 'image[]', 'image[]']);
      expect(images.map((f) => f.mimetype)).to.deep.equal(['image/png', 'image/png', 'image/png']);
      expect(images.map((f) => f.bytes.equals(red) || f.bytes.equals(green) || f.bytes.equals(blue))).to.deep.equal([true, true, true]);
      expect(images.find((f) => f.filename === 'green.png')!.bytes.equals(green)).to.equal(true);
      expect(images.find((f) => f.filename === 'ref.png')!.bytes.equals(blue)).to.equal(true);
      expect(rig.openai.findings.at(-1)!.errors).to.deep.equal([]);
      expect((res.json.data as unknown[]).length).to.equal(1);
    });

    it('refuses another key\'s file id without contacting the provider', async () => {
      const fileId = await upload(blue, OTHER_KEY);
      const before = rig.openai.requests.length;
      const res = await rig.post('/v1/images/edits', { model: 'openai/gpt-image-2', prompt: 'x', image: `data:image/png;base64,${red.toString('base64')}`, file_id: fileId });
      expect(res.status).to.equal(400);
      expect((res.json.error as Record<string, unknown>).code).to.equal('file_not_found');
      expect(rig.openai.requests.length).to.equal(before);
    });

    it('reports an unreachable image URL as a 400', async () => {
      const res = await rig.post('/v1/images/edits', { model: 'openai/gpt-image-2', prompt: 'x', image: `${media.url}/missing.png` });
      expect(res.status).to.equal(400);
      expect((res.json.error as Record<string, unknown>).code).to.equal('fetch_failed');
    });
  });

  describe('google', () => {
    it('generates through generateContent with aspect ratio and resolution mapped', async () => {
      const res = await rig.post('/v1/images/generations', { model: 'google/gemini-nano-banana-2.1', prompt: 'a banana', aspect_ratio: '16:9', resolution: '2k' });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      const upstream = lastRequest(rig.google, '/v1beta/models/gemini-nano-banana-2.1:generateContent').json;
      expect(upstream).to.deep.equal({
        contents: [{ role: 'user', parts: [{ text: 'a banana' }] }],
        generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '16:9', imageSize: '2K' } },
      });
      const data = res.json.data as Array<{ b64_json: string }>;
      expect(data).to.have.length(1);
      expect(Buffer.from(data[0]!.b64_json, 'base64').subarray(1, 4).toString('latin1')).to.equal('PNG');
      expect(res.json.output_format).to.equal('png');
      expect(res.json.created).to.be.a('number');
      expect(res.json.usage).to.include({ input_tokens: 12, output_tokens: 1290, total_tokens: 1302 });
    });

    it('edits with the source images as inline data', async () => {
      const fileId = await upload(blue);
      const res = await rig.post('/v1/images/edits', { model: 'google/gemini-nano-banana-2.1', prompt: 'add a hat', images: [`data:image/png;base64,${red.toString('base64')}`, { type: 'image_url', url: `${media.url}/green.png` }], file_ids: [fileId] });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      const parts = (lastRequest(rig.google, /generateContent$/).json as { contents: Array<{ parts: Array<Record<string, { data: string; mimeType: string }>> }> }).contents[0]!.parts;
      expect(parts[0]).to.deep.equal({ text: 'add a hat' });
      expect(parts.slice(1).map((p) => Buffer.from(p.inlineData!.data, 'base64'))).to.deep.equal([red, green, blue]);
      expect(parts.slice(1).every((p) => p.inlineData!.mimeType === 'image/png')).to.equal(true);
    });
  });

  describe('sandbox', () => {
    it('answers the same shape (data[].b64_json)', async () => {
      const res = await rig.post('/v1/images/generations', { model: 'sandbox/image-1', prompt: 'p' });
      expect(res.status).to.equal(200);
      expect((res.json.data as Array<Record<string, unknown>>)[0]).to.have.property('b64_json');
    });
  });

  describe('every fake', () => {
    it('received only valid requests (after all the calls above)', () => {
      expect(rig.google.findings.length + rig.openai.findings.length).to.equal(4);
      expect(rig.google.findings.filter((f) => f.errors.length > 0)).to.deep.equal([]);
      expect(rig.openai.findings.filter((f) => f.errors.length > 0)).to.deep.equal([]);
      expect(rig.violations(), 'requests a provider would have refused').to.deep.equal([]);
    });
  });
});
