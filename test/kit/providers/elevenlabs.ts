/**
 * ElevenLabs as a kit handler dialect (base URL `<url>`): text-to-speech
 * (`/v1/text-to-speech/{voice_id}`, `output_format` query), music (`/v1/music`) and Scribe
 * speech-to-text (multipart). The key travels in `xi-api-key`; errors use
 * `{detail: {status, message}}`, validation errors 422 `{detail: [{loc, msg, type}]}`.
 */
import type { HandlerDialect, HandlerReply, HandlerRequest } from '../handler.js';
import { missingFields, unknownFields } from './checks.js';
import { recordFindings, refuseKey, type Finding } from './findings.js';
import { makeMp3Like, makeWav } from './media-bytes.js';
import { startProviderUpstream, type ProviderUpstream } from './provider-upstream.js';

/** What the ElevenLabs fake keeps. */
export interface ElevenLabsState {
  findings: Finding[];
  /** The MP3 bytes speech and music answer. */
  audioBytes: Buffer;
}

/** A running ElevenLabs fake. */
export type ElevenLabsUpstream = ProviderUpstream<ElevenLabsState>;

const NAME = 'elevenlabs';
const FORMAT = /^(mp3_(22050_32|24000_48|44100_(32|64|96|128|192))|pcm_(8000|16000|22050|24000|32000|44100|48000)|wav_(8000|16000|22050|24000|32000|44100|48000)|ulaw_8000|alaw_8000|opus_48000_(32|64|96|128|192))$/;
const TTS = /^\/v1\/text-to-speech\/([^/]+)$/;
const STATUS: Record<number, string> = { 400: 'invalid_request', 401: 'invalid_api_key', 404: 'not_found', 429: 'too_many_concurrent_requests', 500: 'internal_error', 503: 'service_unavailable' };

/** ElevenLabs' error body for a status. */
export function elevenLabsErrorBody(status: number, message: string): unknown {
  return { detail: { status: STATUS[status] ?? (status >= 500 ? 'internal_error' : 'invalid_request'), message } };
}

function audio(state: ElevenLabsState, format: string | null): HandlerReply {
  const f = format ?? 'mp3_44100_128';
  if (f.startsWith('wav')) return { headers: { 'content-type': 'audio/wav' }, body: makeWav(800) };
  if (f.startsWith('pcm')) return { headers: { 'content-type': 'audio/pcm' }, body: Buffer.alloc(1600, 1) };
  return { headers: { 'content-type': 'audio/mpeg' }, chunks: [state.audioBytes.subarray(0, 8192), state.audioBytes.subarray(8192)] };
}

function musicErrors(body: { music_length_ms?: number }): string[] {
  const errors = [...unknownFields(body, ['prompt', 'composition_plan', 'music_length_ms', 'model_id', 'seed', 'force_instrumental', 'respect_sections_durations']), ...missingFields(body, ['prompt'])];
  if (body.music_length_ms !== undefined && (!Number.isInteger(body.music_length_ms) || body.music_length_ms < 3000 || body.music_length_ms > 300000)) errors.push('music_length_ms must be an integer from 3000 to 300000');
  return errors;
}

function scribe(req: HandlerRequest, check: (errors: string[]) => HandlerReply | undefined): HandlerReply {
  const fields = req.form?.fields ?? {};
  const file = req.form?.files.find((f) => f.field === 'file');
  const errors = Object.keys(fields).filter((k) => !['model_id', 'language_code', 'tag_audio_events', 'num_speakers', 'timestamps_granularity', 'diarize', 'cloud_storage_url'].includes(k)).map((k) => `unknown field '${k}'`);
  if (!fields.model_id?.[0]) errors.push('model_id is required');
  if (!file) errors.push('file is required');
  const bad = check(errors);
  if (bad) return bad;
  return { json: { language_code: fields.language_code?.[0] ?? 'eng', language_probability: 0.98, text: `scribed ${file!.bytes.length} bytes`, words: [{ text: 'scribed', start: 0, end: 0.5, type: 'word' }] } };
}

/** The ElevenLabs handler dialect, accepting `key`. */
export function elevenLabsHandler(key: string, state: ElevenLabsState): HandlerDialect {
  return {
    name: 'elevenlabs',
    match: (method, url) => method === 'POST' && (TTS.test(url.pathname) || url.pathname === '/v1/music' || url.pathname === '/v1/speech-to-text'),
    handle: (req, violations) => {
      if (req.headers['xi-api-key'] !== key) return refuseKey(violations, NAME, req, { status: 401, json: elevenLabsErrorBody(401, 'Invalid API key') });
      const check = (errors: string[]) => recordFindings(state.findings, violations, NAME, req, errors, (e) => ({ status: 422, json: { detail: e.map((msg) => ({ loc: ['body'], msg, type: 'value_error' })) } }));
      const format = req.query.get('output_format');
      if (format !== null && !FORMAT.test(format)) return check([`output_format '${format}' is not supported`])!;
      const tts = TTS.exec(req.path);
      if (tts) {
        const bad = check([...unknownFields(req.json, ['text', 'model_id', 'language_code', 'voice_settings', 'seed', 'previous_text', 'next_text', 'apply_text_normalization']), ...missingFields(req.json, ['text'])]);
        if (bad) return bad;
        // An unknown voice is the provider's answer to a valid request, not a violation.
        if (tts[1] === 'missing-voice') return { status: 404, json: { detail: { status: 'voice_not_found', message: 'A voice with the voice_id missing-voice was not found.' } } };
        return audio(state, format);
      }
      if (req.path === '/v1/music') return check(musicErrors(req.json as { music_length_ms?: number })) ?? audio(state, format);
      return scribe(req, check);
    },
    errorBody: elevenLabsErrorBody,
  };
}

/** Starts the ElevenLabs fake (default key `xi-test`). */
export async function startElevenLabsUpstream(options: { key?: string; name?: string } = {}): Promise<ElevenLabsUpstream> {
  const key = options.key ?? 'xi-test';
  const state: ElevenLabsState = { findings: [], audioBytes: makeMp3Like(20 * 1024, 11) };
  return startProviderUpstream(options.name ?? NAME, key, [elevenLabsHandler(key, state)], state);
}
