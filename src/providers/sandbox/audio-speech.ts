import type { OperationCall, OperationResult } from '../types.js';
import { requireString } from './body-fields.js';
import { hashString32 } from './hash.js';
import { encodeWav, SAMPLE_RATE } from './wav.js';

/** `ISFT` tag of sandbox speech; transcription returns the `ICMT` text of such files. */
export const SPEECH_SOFTWARE = 'model-gateway sandbox speech';
const CHAR_SECONDS = 0.07;
const SPACE_SECONDS = 0.05;
const PAUSE_SECONDS = 0.15;
const MIN_SECONDS = 0.3;
const MAX_SECONDS = 30;
/** Longest text kept in the WAV's ICMT tag. */
const MAX_TAG_CHARS = 8192;

/**
 * `audio.speech`: WAV (RIFF PCM 16-bit mono 16 kHz) of a tone sequence derived from the text:
 * one 70 ms tone per letter or digit (pitch from the character and the voice), short silences at
 * spaces and punctuation, so the duration grows with the text (0.3 s to 30 s). The text rides in
 * the file's INFO chunk so sandbox transcription round-trips it. Returned as bytes, or as a JSON
 * envelope `{object: 'audio.speech', ..., audio_base64}` when `response_format` is `json`.
 * Other `response_format` values (mp3, opus ...) still get WAV: the sandbox has no encoders.
 */
export async function synthesizeSpeech(call: OperationCall): Promise<OperationResult> {
  const text = requireString(call.body, 'input');
  const voice = typeof call.body.voice === 'string' ? call.body.voice : typeof call.body.speaker === 'string' ? call.body.speaker : 'default';
  const samples = renderSpeechSamples(text, voice);
  const tags: Record<string, string> = { ISFT: SPEECH_SOFTWARE, ICMT: text.slice(0, MAX_TAG_CHARS) };
  if (typeof call.body.language === 'string') tags.ILNG = call.body.language;
  const wav = encodeWav(samples, tags);
  const durationSeconds = Number((samples.length / SAMPLE_RATE).toFixed(3));
  if (call.body.response_format === 'json') {
    return {
      kind: 'json',
      body: { object: 'audio.speech', model: call.model.id, content_type: 'audio/wav', audio_base64: wav.toString('base64'), duration_seconds: durationSeconds },
    };
  }
  return { kind: 'bytes', contentType: 'audio/wav', body: wav, headers: { 'x-audio-duration-seconds': String(durationSeconds) } };
}

/** The tone sequence of a text, as float samples. */
export function renderSpeechSamples(text: string, voice: string): Float32Array {
  const base = 110 + (hashString32(`voice:${voice}`) % 16) * 10;
  const segments: Array<{ frequency: number; seconds: number }> = [];
  let total = 0;
  for (const char of text) {
    const seconds = /[\p{L}\p{N}]/u.test(char) ? CHAR_SECONDS : /\s/.test(char) ? SPACE_SECONDS : PAUSE_SECONDS;
    if (total + seconds > MAX_SECONDS) break;
    const frequency = /[\p{L}\p{N}]/u.test(char) ? base * 2 ** ((char.toLowerCase().codePointAt(0)! % 24) / 12) : 0;
    segments.push({ frequency, seconds });
    total += seconds;
  }
  if (total < MIN_SECONDS) segments.push({ frequency: 0, seconds: MIN_SECONDS - total });
  const samples = new Float32Array(Math.round(segments.reduce((n, s) => n + s.seconds, 0) * SAMPLE_RATE));
  let offset = 0;
  for (const segment of segments) {
    const length = Math.min(Math.round(segment.seconds * SAMPLE_RATE), samples.length - offset);
    if (segment.frequency > 0) {
      const ramp = Math.min(80, length / 2); // 5 ms fades avoid clicks
      for (let i = 0; i < length; i++) {
        const envelope = Math.min(1, i / ramp, (length - i) / ramp);
        const phase = (2 * Math.PI * segment.frequency * i) / SAMPLE_RATE;
        samples[offset + i] = 0.3 * envelope * (Math.sin(phase) + 0.3 * Math.sin(2 * phase));
      }
    }
    offset += length;
  }
  return samples;
}
