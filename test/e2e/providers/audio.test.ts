import { expect } from 'chai';
import OpenAI from 'openai';
import { makeWav } from '../../kit/providers/media-bytes.js';
import { TEST_KEY } from '../../helpers/gateway.js';
import { lastRequest, startProviderRig, type ProviderRig } from './setup.js';

const OTHER_KEY = 'other-key-0123456789';

describe('e2e/providers/audio', () => {
  let rig: ProviderRig;
  before(async () => { rig = await startProviderRig({ GATEWAY_API_KEYS: `${TEST_KEY},${OTHER_KEY}` }); });
  after(async () => { await rig.close(); });
  afterEach(() => expect(rig.violations(), 'requests a provider would have refused').to.deep.equal([]));

  describe('speech', () => {
    it('streams OpenAI speech bytes unchanged to the official SDK, with the content type', async () => {
      const client = new OpenAI({ apiKey: rig.gw.key, baseURL: `${rig.gw.url}/v1` });
      const res = await client.audio.speech.create({ model: 'openai/gpt-4o-mini-tts', input: 'Hello there', voice: 'coral', instructions: 'cheerful' });
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('content-type')).to.equal('audio/mpeg');
      expect(bytes.equals(rig.openai.speechBytes)).to.equal(true);
      expect(lastRequest(rig.openai, '/v1/audio/speech').json).to.deep.equal({ model: 'gpt-4o-mini-tts', input: 'Hello there', voice: 'coral', instructions: 'cheerful' });
      expect(rig.openai.findings.at(-1)!.errors).to.deep.equal([]);
    });

    it('defaults the OpenAI voice and maps response_format to a SPEC content type', async () => {
      const res = await rig.post('/v1/audio/speech', { model: 'openai/tts-1', input: 'hi', response_format: 'opus' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('audio/ogg');
      expect(lastRequest(rig.openai, '/v1/audio/speech').json).to.deep.equal({ model: 'tts-1', input: 'hi', voice: 'alloy', response_format: 'opus' });
    });

    it('answers a JSON envelope when the body asks response_format json', async () => {
      const res = await rig.post('/v1/audio/speech', { model: 'openai/tts-1', input: 'hi', response_format: 'json' });
      expect(res.status).to.equal(200);
      expect(res.json).to.include({ object: 'audio.speech', model: 'openai/tts-1', content_type: 'audio/mpeg' });
      expect(Buffer.from(String(res.json.audio_base64), 'base64').equals(rig.openai.speechBytes)).to.equal(true);
      expect((lastRequest(rig.openai, '/v1/audio/speech').json as Record<string, unknown>).response_format).to.equal('mp3');
    });

    it('streams ElevenLabs speech from the voice path with the output format query and xi-api-key', async () => {
      const res = await rig.post('/v1/audio/speech', { model: 'elevenlabs/eleven-flash-v2.5', input: 'Bonjour', voice: 'voice123', language: 'fr' });
      expect(res.status, res.bytes.toString()).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('audio/mpeg');
      expect(res.bytes.equals(rig.elevenlabs.audioBytes)).to.equal(true);
      const upstream = lastRequest(rig.elevenlabs, '/v1/text-to-speech/voice123');
      expect(upstream.headers['xi-api-key']).to.equal('xi-test');
      expect(upstream.headers.authorization).to.equal(undefined);
      expect(upstream.query.output_format).to.equal('mp3_44100_128');
      expect(upstream.json).to.deep.equal({ text: 'Bonjour', model_id: 'eleven_flash_v2_5', language_code: 'fr' });
    });

    it('uses the default ElevenLabs voice and wav output when asked', async () => {
      const res = await rig.post('/v1/audio/speech', { model: 'elevenlabs/eleven-multilingual-v2', input: 'Hi', response_format: 'wav' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('audio/wav');
      expect(res.bytes.subarray(0, 4).toString('latin1')).to.equal('RIFF');
      const upstream = lastRequest(rig.elevenlabs, /^\/v1\/text-to-speech\//);
      expect(upstream.path).to.equal('/v1/text-to-speech/JBFqnCBsd6RMkjVDRZzb');
      expect(upstream.query.output_format).to.equal('wav_44100');
    });

    it('refuses a response_format the provider cannot produce with a 400', async () => {
      const res = await rig.post('/v1/audio/speech', { model: 'elevenlabs/eleven-multilingual-v2', input: 'Hi', response_format: 'flac' });
      expect(res.status).to.equal(400);
      expect((res.json.error as Record<string, unknown>).code).to.equal('unsupported_value');
      expect((res.json.error as Record<string, unknown>).message).to.contain('response_format');
    });

    it('keeps an upstream 404 (unknown voice) with its message', async () => {
      const res = await rig.post('/v1/audio/speech', { model: 'elevenlabs/eleven-multilingual-v2', input: 'Hi', voice: 'missing-voice' });
      expect(res.status).to.equal(404);
      expect((res.json.error as Record<string, unknown>).message).to.contain('missing-voice was not found');
    });
  });

  describe('music', () => {
    it('turns ElevenLabs music bytes into the JSON envelope, with the length in ms', async () => {
      const res = await rig.post('/v1/audio/music', { model: 'elevenlabs/music-v1', input: 'lofi beat', duration_seconds: 12.5 });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      expect(res.json).to.include({ object: 'audio.music', model: 'elevenlabs/music-v1', content_type: 'audio/mpeg', duration_seconds: 12.5 });
      expect(Buffer.from(String(res.json.audio_base64), 'base64').equals(rig.elevenlabs.audioBytes)).to.equal(true);
      const upstream = lastRequest(rig.elevenlabs, '/v1/music');
      expect(upstream.json).to.deep.equal({ prompt: 'lofi beat', music_length_ms: 12500, model_id: 'music_v1' });
      expect(upstream.query.output_format).to.equal('mp3_44100_128');
    });

    it('has the same envelope keys as the sandbox', async () => {
      const sandbox = await rig.post('/v1/audio/music', { model: 'sandbox/music-1', input: 'x', duration_seconds: 1 });
      const real = await rig.post('/v1/audio/music', { model: 'elevenlabs/music-v1', input: 'x', duration_seconds: 3 });
      expect(Object.keys(real.json).filter((k) => k !== 'usage').sort()).to.deep.equal(Object.keys(sandbox.json).filter((k) => k !== 'usage').sort());
    });
  });

  describe('transcriptions', () => {
    const wav = makeWav(3200);

    it('sends audio_base64 to OpenAI as a multipart file with a proper name, bytes unchanged', async () => {
      const res = await rig.post('/v1/audio/transcriptions', { model: 'openai/gpt-transcribe', audio_base64: wav.toString('base64'), language: 'en', prompt: 'names: Ada' });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      const upstream = lastRequest(rig.openai, '/v1/audio/transcriptions');
      expect(upstream.form!.fields).to.deep.equal({ model: ['gpt-transcribe'], language: ['en'], prompt: ['names: Ada'], response_format: ['json'] });
      const file = upstream.form!.files[0]!;
      expect(file.field).to.equal('file');
      expect(file.filename).to.match(/\.wav$/);
      expect(file.mimetype).to.equal('audio/wav');
      expect(file.bytes.equals(wav)).to.equal(true);
      expect(res.json).to.include({ text: `heard ${wav.length} bytes of ${file.filename}`, language: 'en' });
      expect(rig.openai.findings.at(-1)!.errors).to.deep.equal([]);
    });

    it('names the file after audio_format when given', async () => {
      const res = await rig.post('/v1/audio/transcriptions', { model: 'openai/whisper-1', audio_base64: wav.toString('base64'), audio_format: 'wav' });
      expect(res.status).to.equal(200);
      expect(lastRequest(rig.openai, '/v1/audio/transcriptions').form!.files[0]!.filename).to.equal('audio.wav');
    });

    it('reads a file_id upload of the caller and sends it to ElevenLabs Scribe', async () => {
      const upload = await rig.post('/v1/files', { content_base64: wav.toString('base64'), filename: 'meeting.wav', mime_type: 'audio/wav' });
      const res = await rig.post('/v1/audio/transcriptions', { model: 'elevenlabs/scribe-v1', file_id: upload.json.id, language: 'de' });
      expect(res.status, JSON.stringify(res.json)).to.equal(200);
      const upstream = lastRequest(rig.elevenlabs, '/v1/speech-to-text');
      expect(upstream.headers['xi-api-key']).to.equal('xi-test');
      expect(upstream.form!.fields).to.deep.equal({ model_id: ['scribe_v1'], language_code: ['de'] });
      expect(upstream.form!.files[0]!.filename).to.equal('meeting.wav');
      expect(upstream.form!.files[0]!.bytes.equals(wav)).to.equal(true);
      expect(res.json).to.include({ text: `scribed ${wav.length} bytes`, language: 'de' });
      expect(res.json.words).to.be.an('array');
    });

    it('refuses a file uploaded by another key', async () => {
      const upload = await rig.post('/v1/files', { content_base64: wav.toString('base64') }, OTHER_KEY);
      const res = await rig.post('/v1/audio/transcriptions', { model: 'openai/whisper-1', file_id: upload.json.id });
      expect(res.status).to.equal(400);
      expect((res.json.error as Record<string, unknown>).code).to.equal('file_not_found');
    });

    it('refuses audio_base64 that is not base64 before any upstream call', async () => {
      const before = rig.openai.requests.length;
      const res = await rig.post('/v1/audio/transcriptions', { model: 'openai/whisper-1', audio_base64: 'not base64!!' });
      expect(res.status).to.equal(400);
      expect((res.json.error as Record<string, unknown>).message).to.contain('audio_base64');
      expect(rig.openai.requests.length).to.equal(before);
    });
  });
});
