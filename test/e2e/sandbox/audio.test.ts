import { expect } from 'chai';
import OpenAI, { toFile } from 'openai';
import { KEY_B, openAiClient, postJson, useSandbox, type ErrorEnvelope } from './helpers.js';
import { readWav } from './media-readers.js';

/** JSON audio answers of the sandbox (speech envelope, music). */
interface AudioJson { object: string; model: string; content_type: string; audio_base64: string; duration_seconds: number }
interface Transcript { text: string; language: string; duration_seconds: number }

describe('e2e sandbox: audio', () => {
  const sb = useSandbox(openAiClient);

  /** Speech bytes through the SDK. */
  async function speak(input: string): Promise<{ bytes: Buffer; response: Response }> {
    const response = await sb.client.audio.speech.create({ model: 'sandbox/speech-1', input, voice: 'alloy' });
    return { bytes: Buffer.from(await response.arrayBuffer()), response };
  }

  describe('POST /v1/audio/speech', () => {
    it('returns WAV bytes (RIFF PCM 16-bit) with content-type audio/wav through the openai SDK', async () => {
      const { bytes, response } = await speak('Hello from the gateway sandbox');
      expect(response.headers.get('content-type')).to.equal('audio/wav');
      expect(bytes.toString('latin1', 0, 4)).to.equal('RIFF');
      expect(bytes.toString('latin1', 8, 12)).to.equal('WAVE');
      const wav = readWav(bytes);
      expect(wav.audioFormat).to.equal(1);
      expect(wav.bitsPerSample).to.equal(16);
      expect(wav.channels).to.equal(1);
      expect(wav.sampleRate).to.be.greaterThan(0);
      expect(wav.peak).to.be.greaterThan(1000);
      expect(wav.durationSeconds).to.be.closeTo(Number(response.headers.get('x-audio-duration-seconds')), 0.01);
    });

    it('makes longer audio for longer text', async () => {
      const short = readWav((await speak('Hi')).bytes);
      const long = readWav((await speak('This sentence is a good deal longer than the first one')).bytes);
      expect(long.durationSeconds).to.be.greaterThan(short.durationSeconds * 2);
    });

    it('returns a JSON envelope with the same WAV when response_format is json', async () => {
      const res = await postJson<AudioJson>(sb.gw, '/v1/audio/speech', { model: 'sandbox/speech-1', input: 'json please', response_format: 'json' });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.body.object).to.equal('audio.speech');
      expect(res.body.content_type).to.equal('audio/wav');
      const wav = readWav(Buffer.from(res.body.audio_base64, 'base64'));
      expect(wav.durationSeconds).to.be.closeTo(res.body.duration_seconds, 0.01);
    });

    it('answers 400 naming input when input is empty', async () => {
      const res = await postJson<ErrorEnvelope>(sb.gw, '/v1/audio/speech', { model: 'sandbox/speech-1', input: '' });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.include('input');
    });
  });

  describe('POST /v1/audio/music', () => {
    it('returns a WAV clip of the asked duration, base64 in JSON', async () => {
      const res = await postJson<AudioJson>(sb.gw, '/v1/audio/music', { model: 'sandbox/music-1', input: 'a calm piano tune', duration_seconds: 2 });
      expect(res.status).to.equal(200);
      expect(res.body.object).to.equal('audio.music');
      expect(res.body.content_type).to.equal('audio/wav');
      const wav = readWav(Buffer.from(res.body.audio_base64, 'base64'));
      expect(wav.durationSeconds).to.be.closeTo(2, 0.01);
      expect(wav.peak).to.be.greaterThan(1000);
      expect(res.body.duration_seconds).to.be.closeTo(2, 0.01);
    });
  });

  describe('POST /v1/audio/transcriptions', () => {
    it('round-trips speech text from audio_base64', async () => {
      const text = 'The quick brown fox jumps over the lazy dog';
      const { bytes } = await speak(text);
      const res = await postJson<Transcript>(sb.gw, '/v1/audio/transcriptions', { model: 'sandbox/transcribe-1', audio_base64: bytes.toString('base64'), audio_format: 'wav' });
      expect(res.status).to.equal(200);
      expect(res.body.text).to.equal(text);
      expect(res.body.duration_seconds).to.be.closeTo(readWav(bytes).durationSeconds, 0.01);
    });

    it('round-trips speech -> upload via /v1/files (openai SDK files.create) -> transcription by file_id', async () => {
      const text = 'Files uploaded once are used by later requests';
      const { bytes } = await speak(text);
      const file = await sb.client.files.create({
        file: await toFile(bytes, 'speech.wav', { type: 'audio/wav' }),
        purpose: 'user_upload' as OpenAI.FilePurpose,
      });
      expect(file.id).to.be.a('string').and.not.equal('');
      expect(file.filename).to.equal('speech.wav');
      expect(file.bytes).to.equal(bytes.length);
      const res = await postJson<Transcript>(sb.gw, '/v1/audio/transcriptions', { model: 'sandbox/transcribe-1', file_id: file.id });
      expect(res.status).to.equal(200);
      expect(res.body.text).to.equal(text);

      const stranger = await postJson<ErrorEnvelope>(sb.gw, '/v1/audio/transcriptions', { model: 'sandbox/transcribe-1', file_id: file.id }, KEY_B);
      expect(stranger.status).to.equal(400);
      expect(stranger.body.error.code).to.equal('file_not_found');
    });

    it('answers 400 when neither audio_base64 nor file_id is given', async () => {
      const res = await postJson<ErrorEnvelope>(sb.gw, '/v1/audio/transcriptions', { model: 'sandbox/transcribe-1', language: 'en' });
      expect(res.status).to.equal(400);
      expect(res.body.error.message).to.include('audio_base64').and.include('file_id');
    });

    it('answers 400 invalid_audio for bytes that are not audio', async () => {
      const res = await postJson<ErrorEnvelope>(sb.gw, '/v1/audio/transcriptions', { model: 'sandbox/transcribe-1', audio_base64: Buffer.from('just some text, not audio').toString('base64') });
      expect(res.status).to.equal(400);
      expect(res.body.error.code).to.equal('invalid_audio');
    });
  });
});
