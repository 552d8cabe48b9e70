import { expect } from 'chai';
import OpenAI, { toFile } from 'openai';
import type { TestGateway } from '../../helpers/gateway.js';
import { bootSandbox, KEY_A, KEY_B, openAiClient, postJson, type ErrorEnvelope } from './helpers.js';
import { readPng } from './media-readers.js';

/** The upload record (SPEC 2.7: a JSON object; the gateway's fields). */
interface FileBody { id: string; object: string; bytes: number; created_at: number; filename: string; mime_type: string; purpose: string; provider: string; status: string }

// gateway.yaml `files.default_provider`.
const DEFAULT_PROVIDER = 'sandbox';

describe('e2e sandbox: POST /v1/files', () => {
  let gw: TestGateway;
  let png: Buffer;
  before(async () => {
    gw = await bootSandbox();
    const image = await postJson<{ data: Array<{ b64_json: string }> }>(gw, '/v1/images/generations', { model: 'sandbox/image-1', prompt: 'upload me', size: '20x10' });
    png = Buffer.from(image.body.data[0]!.b64_json, 'base64');
  });
  after(() => gw.close());

  const upload = (form: FormData, apiKey = KEY_A) =>
    fetch(`${gw.url}/v1/files`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}` }, body: form });

  describe('multipart/form-data', () => {
    it('stores a FormData file part with its name and type, purpose and provider defaulted', async () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'fox.png');
      const res = await upload(form);
      expect(res.status).to.equal(200);
      const body = await res.json() as FileBody;
      expect(body.id).to.be.a('string').and.not.equal('');
      expect(body.object).to.equal('file');
      expect(body.bytes).to.equal(png.length);
      expect(body.filename).to.equal('fox.png');
      expect(body.mime_type).to.equal('image/png');
      expect(body.purpose).to.equal('user_upload');
      expect(body.provider).to.equal(DEFAULT_PROVIDER);
      expect(JSON.stringify(body)).to.not.include(KEY_A);
    });

    it('takes purpose vision_reference and an explicit provider part', async () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'ref.png');
      form.append('purpose', 'vision_reference');
      form.append('provider', 'sandbox');
      const body = await (await upload(form)).json() as FileBody;
      expect(body.purpose).to.equal('vision_reference');
      expect(body.provider).to.equal('sandbox');
    });

    it('answers 400 for a bad purpose part and for a missing file part', async () => {
      const bad = new FormData();
      bad.append('file', new Blob([new Uint8Array(png)]), 'x.png');
      bad.append('purpose', 'fine-tune');
      const badRes = await upload(bad);
      expect(badRes.status).to.equal(400);
      expect(((await badRes.json()) as ErrorEnvelope).error.message).to.include('purpose');
      const empty = new FormData();
      empty.append('purpose', 'user_upload');
      const emptyRes = await upload(empty);
      expect(emptyRes.status).to.equal(400);
      expect(((await emptyRes.json()) as ErrorEnvelope).error.message).to.include('file');
    });

    it('works through the openai SDK files.create, whose own purposes are refused with BadRequestError', async () => {
      const client = openAiClient(gw);
      const file = await client.files.create({ file: await toFile(png, 'sdk.png', { type: 'image/png' }), purpose: 'vision_reference' as OpenAI.FilePurpose });
      expect(file.filename).to.equal('sdk.png');
      expect(file.bytes).to.equal(png.length);
      expect(file.purpose as string).to.equal('vision_reference');
      try {
        await client.files.create({ file: await toFile(png, 'sdk.png'), purpose: 'assistants' });
        expect.fail('expected 400');
      } catch (e) {
        expect(e).to.be.instanceOf(OpenAI.BadRequestError);
        expect((e as InstanceType<typeof OpenAI.BadRequestError>).message).to.include('purpose');
      }
    });
  });

  describe('application/json', () => {
    it('defaults filename upload.bin, mime application/octet-stream, purpose user_upload and the provider', async () => {
      const res = await postJson<FileBody>(gw, '/v1/files', { content_base64: Buffer.from('hello file').toString('base64') });
      expect(res.status).to.equal(200);
      expect(res.body.filename).to.equal('upload.bin');
      expect(res.body.mime_type).to.equal('application/octet-stream');
      expect(res.body.purpose).to.equal('user_upload');
      expect(res.body.provider).to.equal(DEFAULT_PROVIDER);
      expect(res.body.bytes).to.equal(10);
    });

    it('keeps the given filename, mime type and purpose', async () => {
      const res = await postJson<FileBody>(gw, '/v1/files', { content_base64: png.toString('base64'), filename: 'given.png', mime_type: 'image/png', purpose: 'vision_reference', provider: 'sandbox' });
      expect(res.status).to.equal(200);
      expect([res.body.filename, res.body.mime_type, res.body.purpose, res.body.bytes]).to.deep.equal(['given.png', 'image/png', 'vision_reference', png.length]);
    });

    it('answers 400 for a bad purpose, an unknown field, bad base64 and an unknown provider', async () => {
      const content = Buffer.from('x').toString('base64');
      const purpose = await postJson<ErrorEnvelope>(gw, '/v1/files', { content_base64: content, purpose: 'batch' });
      expect(purpose.status).to.equal(400);
      expect(purpose.body.error.message).to.include('purpose');
      const extra = await postJson<ErrorEnvelope>(gw, '/v1/files', { content_base64: content, expires_after: 3600 });
      expect(extra.status).to.equal(400);
      expect(extra.body.error.message).to.include('expires_after');
      const base64 = await postJson<ErrorEnvelope>(gw, '/v1/files', { content_base64: 'not base64!' });
      expect(base64.status).to.equal(400);
      expect(base64.body.error.message).to.include('content_base64');
      const provider = await postJson<ErrorEnvelope>(gw, '/v1/files', { content_base64: content, provider: 'no-such-provider' });
      expect(provider.status).to.equal(400);
    });
  });

  describe('file_id in later requests', () => {
    it('serves the uploading key, and answers 400 file_not_found to another key', async () => {
      const uploaded = await postJson<FileBody>(gw, '/v1/files', { content_base64: png.toString('base64'), filename: 'ref.png', mime_type: 'image/png' });
      expect(uploaded.status).to.equal(200);
      const body = { model: 'sandbox/image-1', prompt: 'variation of the reference', file_id: uploaded.body.id };
      const mine = await postJson<{ data: Array<{ b64_json: string }> }>(gw, '/v1/images/generations', body);
      expect(mine.status).to.equal(200);
      expect(readPng(Buffer.from(mine.body.data[0]!.b64_json, 'base64')).width).to.be.greaterThan(0);
      const theirs = await postJson<ErrorEnvelope>(gw, '/v1/images/generations', body, KEY_B);
      expect(theirs.status).to.equal(400);
      expect(theirs.body.error.code).to.equal('file_not_found');
      expect(theirs.body.error.type).to.equal('invalid_request_error');
    });
  });
});
