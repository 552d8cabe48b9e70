import { expect } from 'chai';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { sandboxProvider } from '../../../src/providers/sandbox/index.js';
import { createFakeCall, MemoryFileStore, type FakeCallOptions } from './fakes.js';

const ops = sandboxProvider.operations!;

/** Reads the canonical 44-byte WAV header fields (independent of the sandbox's parser). */
function readWavHeader(wav: Buffer): Record<string, number | string> {
  return {
    riff: wav.toString('latin1', 0, 4),
    riffSize: wav.readUInt32LE(4),
    wave: wav.toString('latin1', 8, 12),
    fmt: wav.toString('latin1', 12, 16),
    audioFormat: wav.readUInt16LE(20),
    channels: wav.readUInt16LE(22),
    sampleRate: wav.readUInt32LE(24),
    byteRate: wav.readUInt32LE(28),
    blockAlign: wav.readUInt16LE(32),
    bitsPerSample: wav.readUInt16LE(34),
    data: wav.toString('latin1', 36, 40),
    dataSize: wav.readUInt32LE(40),
  };
}

async function json(op: string, body: Record<string, unknown>, options?: FakeCallOptions): Promise<Record<string, unknown>> {
  const result = await ops[op]!(createFakeCall(op, body, options));
  expect(result.kind).to.equal('json');
  return (result as { body: Record<string, unknown> }).body;
}

async function speechBytes(input: string): Promise<Buffer> {
  const result = await ops['audio.speech']!(createFakeCall('audio.speech', { input, voice: 'alloy' }));
  expect(result.kind).to.equal('bytes');
  if (result.kind !== 'bytes') throw new Error('unreachable');
  expect(result.contentType).to.equal('audio/wav');
  return Buffer.from(result.body as Uint8Array);
}

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  try {
    await promise;
    expect.fail('should throw');
  } catch (e) {
    expect(e).to.be.instanceOf(GatewayError);
    expect((e as GatewayError).status).to.equal(400);
    expect((e as GatewayError).code).to.equal(code);
  }
}

describe('providers/sandbox/audio', () => {
  describe('#synthesizeSpeech', () => {
    it('returns a PCM 16-bit mono 16 kHz WAV whose length grows with the text', async () => {
      const short = await speechBytes('Hi there');
      const long = await speechBytes('Hello there, this is a much longer sentence to speak.');
      const header = readWavHeader(short);
      expect(header).to.include({ riff: 'RIFF', wave: 'WAVE', fmt: 'fmt ', data: 'data', audioFormat: 1, channels: 1, sampleRate: 16000, byteRate: 32000, blockAlign: 2, bitsPerSample: 16 });
      expect(header.riffSize).to.equal(short.length - 8);
      expect(readWavHeader(long).dataSize as number).to.be.greaterThan(header.dataSize as number);
      expect(short.subarray(44, 44 + (header.dataSize as number)).some((b) => b !== 0)).to.equal(true);
      expect(await speechBytes('Hi there')).to.deep.equal(short);
    });

    it('returns the JSON envelope when response_format is json', async () => {
      const body = await json('audio.speech', { input: 'Hello', response_format: 'json' });
      expect(body).to.include({ object: 'audio.speech', model: 'sandbox/test-1', content_type: 'audio/wav' });
      const wav = Buffer.from(body.audio_base64 as string, 'base64');
      const header = readWavHeader(wav);
      expect(body.duration_seconds).to.be.closeTo((header.dataSize as number) / 32000, 0.001);
    });
  });

  describe('#composeMusic', () => {
    it('returns a WAV melody of the requested duration in JSON', async () => {
      const body = await json('audio.music', { input: 'calm piano', duration_seconds: 2 });
      expect(body).to.include({ object: 'audio.music', content_type: 'audio/wav', duration_seconds: 2 });
      const header = readWavHeader(Buffer.from(body.audio_base64 as string, 'base64'));
      expect(header).to.include({ riff: 'RIFF', sampleRate: 16000, bitsPerSample: 16, channels: 1, dataSize: 64000 });
    });
  });

  describe('#transcribeAudio', () => {
    it('round-trips sandbox speech back to its text', async () => {
      const wav = await speechBytes('The quick brown fox.');
      const body = await json('audio.transcriptions', { audio_base64: wav.toString('base64') });
      expect(body.text).to.equal('The quick brown fox.');
      expect(body.language).to.equal('en');
      const seconds = readWavHeader(wav).dataSize as number / 32000;
      expect(body.duration_seconds).to.equal(Number(seconds.toFixed(2)));
      expect(body.usage).to.deep.equal({ type: 'duration', seconds: Math.ceil(seconds) });
    });

    it('reports the duration of other WAVs and reads file ids', async () => {
      const music = await json('audio.music', { input: 'drums', duration_seconds: 3 });
      const files = new MemoryFileStore();
      const record = await files.put({ filename: 'a.wav', mime_type: 'audio/wav', purpose: 'user_upload', provider: 'sandbox', owner: 'owner-a' }, Buffer.from(music.audio_base64 as string, 'base64'));
      const body = await json('audio.transcriptions', { file_id: record.id, language: 'fr' }, { files });
      expect(body).to.deep.include({ text: 'Sandbox transcript of 3.00 seconds of audio', language: 'fr', duration_seconds: 3 });
      await expectCode(ops['audio.transcriptions']!(createFakeCall('audio.transcriptions', { file_id: record.id }, { files, owner: 'other' })), 'file_not_found');
    });

    it('rejects bytes that are not audio and text that is not base64', async () => {
      await expectCode(ops['audio.transcriptions']!(createFakeCall('audio.transcriptions', { audio_base64: Buffer.from('just some text, not audio').toString('base64') })), 'invalid_audio');
      await expectCode(ops['audio.transcriptions']!(createFakeCall('audio.transcriptions', { audio_base64: '%%%not base64%%%' })), 'invalid_base64');
    });
  });
});
