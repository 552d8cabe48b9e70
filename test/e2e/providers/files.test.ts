import { expect } from 'chai';
import OpenAI, { toFile } from 'openai';
import { makeMp3Like } from '../../kit/providers/media-bytes.js';
import { TEST_KEY } from '../../helpers/gateway.js';
import { startProviderRig, type ProviderRig } from './setup.js';

const OTHER_KEY = 'other-key-0123456789';

describe('e2e/providers/files', () => {
  let rig: ProviderRig;
  before(async () => { rig = await startProviderRig({ GATEWAY_API_KEYS: `${TEST_KEY},${OTHER_KEY}` }); });
  after(async () => { await rig.close(); });
  afterEach(() => expect(rig.violations(), 'requests a provider would have refused').to.deep.equal([]));

  it('forwards an SDK multipart upload to OpenAI /files and records provider_file_id, bytes unchanged', async () => {
    const bytes = makeMp3Like(70_000, 3);
    const client = new OpenAI({ apiKey: rig.gw.key, baseURL: `${rig.gw.url}/v1` });
    // The gateway's own fields (SPEC 4.16) ride along in the SDK's multipart body.
    const record = await client.files.create({ file: await toFile(bytes, 'voice.mp3', { type: 'audio/mpeg' }), purpose: 'user_upload', provider: 'openai' } as unknown as Parameters<typeof client.files.create>[0]) as unknown as Record<string, unknown>;
    expect(record).to.include({ object: 'file', bytes: bytes.length, filename: 'voice.mp3', mime_type: 'audio/mpeg', purpose: 'user_upload', provider: 'openai', provider_file_id: 'file-fake1' });
    expect(record).to.not.have.property('owner');
    const stored = rig.openai.files.get('file-fake1')!;
    expect(stored.bytes.equals(bytes)).to.equal(true);
    expect(stored.filename).to.equal('voice.mp3');
    expect(stored.purpose).to.equal('user_data');
    expect(rig.openai.findings.at(-1)).to.deep.equal({ path: '/v1/files', errors: [] });
    // What OpenAI keeps reads back byte for byte.
    const content = await fetch(`${rig.openai.url}/v1/files/file-fake1/content`, { headers: { authorization: 'Bearer sk-test' } });
    expect(Buffer.from(await content.arrayBuffer()).equals(bytes)).to.equal(true);
  });

  it('forwards a JSON upload with the vision purpose mapped', async () => {
    const res = await rig.post('/v1/files', { content_base64: Buffer.from('hello file').toString('base64'), filename: 'note.txt', mime_type: 'text/plain', purpose: 'vision_reference', provider: 'openai' });
    expect(res.status, JSON.stringify(res.json)).to.equal(200);
    const id = String(res.json.provider_file_id);
    expect(rig.openai.files.get(id)).to.deep.include({ filename: 'note.txt', purpose: 'vision' });
    expect(rig.openai.files.get(id)!.bytes.toString()).to.equal('hello file');
  });

  it('keeps sandbox uploads local (no provider_file_id) by default', async () => {
    const before = rig.openai.requests.length;
    const res = await rig.post('/v1/files', { content_base64: Buffer.from('local').toString('base64') });
    expect(res.status).to.equal(200);
    expect(res.json).to.include({ provider: 'sandbox', filename: 'upload.bin', mime_type: 'application/octet-stream', purpose: 'user_upload' });
    expect(res.json).to.not.have.property('provider_file_id');
    expect(rig.openai.requests.length).to.equal(before);
  });

  it('fails the upload with the provider\'s error when the provider refuses it', async () => {
    rig.openai.enqueueFor('openai-media', { status: 413, errorBody: { error: { message: 'File too large.', type: 'invalid_request_error', code: null } } });
    const res = await rig.post('/v1/files', { content_base64: Buffer.from('x').toString('base64'), provider: 'openai' });
    expect(res.status).to.equal(413);
    expect((res.json.error as Record<string, unknown>).message).to.contain('File too large.');
  });

  it('lets a file be used only by the key that uploaded it', async () => {
    const mine = await rig.post('/v1/files', { content_base64: Buffer.from('RIFF').toString('base64') }, OTHER_KEY);
    const res = await rig.post('/v1/audio/transcriptions', { model: 'elevenlabs/scribe-v1', file_id: mine.json.id });
    expect(res.status).to.equal(400);
    expect((res.json.error as Record<string, unknown>).code).to.equal('file_not_found');
  });
});
