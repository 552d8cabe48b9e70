import { startFakeServer, type FakeReply, type FakeRequest, type FakeServer } from './fake-server.js';
import { missingFields, unknownFields } from './checks.js';
import { makeMp3Like, makeWav } from './media-bytes.js';

/** The fake ElevenLabs API and what it saw. */
export interface FakeElevenLabs extends FakeServer {
  findings: Array<{ path: string; errors: string[] }>;
  /** The MP3 bytes speech and music answer. */
  audioBytes: Buffer;
}

const FORMAT = /^(mp3_(22050_32|24000_48|44100_(32|64|96|128|192))|pcm_(8000|16000|22050|24000|32000|44100|48000)|wav_(8000|16000|22050|24000|32000|44100|48000)|ulaw_8000|alaw_8000|opus_48000_(32|64|96|128|192))$/;

/**
 * A fake of ElevenLabs (base URL `<url>`): text-to-speech (`/v1/text-to-speech/{voice_id}`,
 * `output_format` query), music (`/v1/music`) and Scribe speech-to-text (multipart). The key
 * travels in `xi-api-key`; errors use `{detail: {status, message}}`, validation errors 422
 * `{detail: [{loc, msg, type}]}`.
 */
export async function startFakeElevenLabs(options: { key?: string } = {}): Promise<FakeElevenLabs> {
  const key = options.key ?? 'xi-test';
  const findings: FakeElevenLabs['findings'] = [];
  const audioBytes = makeMp3Like(20 * 1024, 11);
  const check = (req: FakeRequest, errors: string[]): FakeReply | undefined => {
    findings.push({ path: req.path, errors });
    return errors.length > 0 ? { status: 422, json: { detail: errors.map((msg) => ({ loc: ['body'], msg, type: 'value_error' })) } } : undefined;
  };
  const audio = (format: string | null): FakeReply => {
    const f = format ?? 'mp3_44100_128';
    if (f.startsWith('wav')) return { headers: { 'content-type': 'audio/wav' }, body: makeWav(800) };
    if (f.startsWith('pcm')) return { headers: { 'content-type': 'audio/pcm' }, body: Buffer.alloc(1600, 1) };
    return { headers: { 'content-type': 'audio/mpeg' }, chunks: [audioBytes.subarray(0, 8192), audioBytes.subarray(8192)] };
  };
  const fake = await startFakeServer((req) => {
    if (req.headers['xi-api-key'] !== key) return { status: 401, json: { detail: { status: 'invalid_api_key', message: 'Invalid API key' } } };
    const format = req.query.get('output_format');
    if (format !== null && !FORMAT.test(format)) return check(req, [`output_format '${format}' is not supported`])!;
    const tts = /^\/v1\/text-to-speech\/([^/]+)$/.exec(req.path);
    if (req.method === 'POST' && tts) {
      const body = req.json as Record<string, unknown>;
      const bad = check(req, [...unknownFields(body, ['text', 'model_id', 'language_code', 'voice_settings', 'seed', 'previous_text', 'next_text', 'apply_text_normalization']), ...missingFields(body, ['text'])]);
      if (bad) return bad;
      if (tts[1] === 'missing-voice') return { status: 404, json: { detail: { status: 'voice_not_found', message: 'A voice with the voice_id missing-voice was not found.' } } };
      return audio(format);
    }
    if (req.method === 'POST' && req.path === '/v1/music') {
      const body = req.json as { music_length_ms?: number };
      const errors = [...unknownFields(body, ['prompt', 'composition_plan', 'music_length_ms', 'model_id', 'seed', 'force_instrumental', 'respect_sections_durations']), ...missingFields(body, ['prompt'])];
      if (body.music_length_ms !== undefined && (!Number.isInteger(body.music_length_ms) || body.music_length_ms < 3000 || body.music_length_ms > 300000)) errors.push('music_length_ms must be an integer from 3000 to 300000');
      const bad = check(req, errors);
      if (bad) return bad;
      return audio(format);
    }
    if (req.method === 'POST' && req.path === '/v1/speech-to-text') {
      const fields = req.form?.fields ?? {};
      const file = req.form?.files.find((f) => f.field === 'file');
      const errors = Object.keys(fields).filter((k) => !['model_id', 'language_code', 'tag_audio_events', 'num_speakers', 'timestamps_granularity', 'diarize', 'cloud_storage_url'].includes(k)).map((k) => `unknown field '${k}'`);
      if (!fields.model_id?.[0]) errors.push('model_id is required');
      if (!file) errors.push('file is required');
      const bad = check(req, errors);
      if (bad) return bad;
      return { json: { language_code: fields.language_code?.[0] ?? 'eng', language_probability: 0.98, text: `scribed ${file!.bytes.length} bytes`, words: [{ text: 'scribed', start: 0, end: 0.5, type: 'word' }] } };
    }
    return { status: 404, json: { detail: { status: 'not_found', message: 'Not found' } } };
  });
  return Object.assign(fake, { findings, audioBytes });
}
