import type { OperationCall, OperationResult } from '../types.js';
import { readNumber, requireString } from './body-fields.js';
import { createRandom, hashParts } from './hash.js';
import { encodeWav, SAMPLE_RATE } from './wav.js';

/** `ISFT` tag of sandbox music. */
export const MUSIC_SOFTWARE = 'model-gateway sandbox music';
const DEFAULT_SECONDS = 8;
const MAX_SECONDS = 30;
/** Major pentatonic steps in semitones: any sequence of them sounds consonant. */
const PENTATONIC = [0, 2, 4, 7, 9, 12];

/**
 * `audio.music`: a WAV melody seeded by the prompt (tempo 80-140 bpm, a pentatonic tune over a
 * root-and-fifth bass), `duration_seconds` long (default 8 s, at most 30 s), returned as JSON
 * `{object: 'audio.music', model, content_type: 'audio/wav', audio_base64, duration_seconds}`.
 */
export async function composeMusic(call: OperationCall): Promise<OperationResult> {
  const prompt = requireString(call.body, 'input');
  const requested = readNumber(call.body, 'duration_seconds');
  const seconds = Math.min(MAX_SECONDS, Math.max(1, requested ?? DEFAULT_SECONDS));
  const samples = renderMelody(prompt, seconds);
  const wav = encodeWav(samples, { ISFT: MUSIC_SOFTWARE, ICMT: prompt.slice(0, 1024) });
  return {
    kind: 'json',
    body: {
      object: 'audio.music',
      model: call.model.id,
      content_type: 'audio/wav',
      audio_base64: wav.toString('base64'),
      duration_seconds: Number((samples.length / SAMPLE_RATE).toFixed(3)),
    },
  };
}

/** The melody of a prompt as float samples. */
export function renderMelody(prompt: string, seconds: number): Float32Array {
  const random = createRandom(hashParts('music', prompt));
  const root = 196 * 2 ** (Math.floor(random() * 7) / 12); // G3 .. C#4
  const beat = 60 / (80 + Math.floor(random() * 61));
  const samples = new Float32Array(Math.round(seconds * SAMPLE_RATE));
  const beatSamples = Math.max(1, Math.round(beat * SAMPLE_RATE));
  for (let start = 0, note = 0; start < samples.length; start += beatSamples, note++) {
    const melody = root * 2 * 2 ** (PENTATONIC[Math.floor(random() * PENTATONIC.length)]! / 12);
    const bass = root / 2 * (note % 4 < 2 ? 1 : 1.5); // root, then fifth
    const length = Math.min(beatSamples, samples.length - start);
    for (let i = 0; i < length; i++) {
      const t = i / SAMPLE_RATE;
      const decay = Math.exp(-3 * t / beat);
      const attack = Math.min(1, i / 80);
      samples[start + i] = attack * (0.35 * decay * Math.sin(2 * Math.PI * melody * t) + 0.2 * Math.sin(2 * Math.PI * bass * t)) * Math.min(1, (length - i) / 80);
    }
  }
  return samples;
}
