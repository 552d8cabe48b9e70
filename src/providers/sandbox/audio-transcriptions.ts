import { errors } from '../../errors/gateway-error.js';
import type { OperationCall, OperationResult } from '../types.js';
import { decodeBase64Field, readNumber, readString } from './body-fields.js';
import { SPEECH_SOFTWARE } from './audio-speech.js';
import { decodeDataUrl } from '../../codecs/shared/data-url.js';
import { UploadedMedia } from '../../mapping/media.js';
import { parseWav } from './wav.js';

/** Bytes per second assumed for compressed audio whose duration the sandbox cannot parse (128 kbit/s). */
const COMPRESSED_BYTES_PER_SECOND = 16_000;

/**
 * `audio.transcriptions`: reads the audio from `audio_base64` (a data: URL is accepted too) or
 * `file_id` (the caller's upload; missing -> 400 `file_not_found`). WAV headers are parsed for
 * the exact duration; MP3, OGG, FLAC, M4A and WebM are recognized by their magic bytes and timed
 * from `duration_seconds` or at 128 kbit/s; anything else -> 400 `invalid_audio`. The text is
 * the original input for WAVs made by sandbox speech (round trip), else "Sandbox transcript of
 * N.NN seconds of audio".
 */
export async function transcribeAudio(call: OperationCall): Promise<OperationResult> {
  const bytes = await readAudioBytes(call);
  const wav = parseWav(bytes);
  let seconds: number;
  let text: string | undefined;
  if (wav) {
    seconds = wav.durationSeconds;
    if (wav.tags.ISFT === SPEECH_SOFTWARE && wav.tags.ICMT !== undefined) text = wav.tags.ICMT;
  } else if (detectCompressedAudio(bytes)) {
    seconds = readNumber(call.body, 'duration_seconds') ?? bytes.length / COMPRESSED_BYTES_PER_SECOND;
  } else {
    throw errors.invalidRequest('The audio is not a WAV, MP3, OGG, FLAC, M4A or WebM file.', 'invalid_audio');
  }
  const duration = Number(seconds.toFixed(2));
  const language = readString(call.body, 'language') ?? (wav?.tags.ILNG || 'en');
  const transcript = text ?? `Sandbox transcript of ${duration.toFixed(2)} seconds of audio`;
  // OpenAI's `response_format: text`: the transcript alone, as text/plain (billing reads the header).
  if (readString(call.body, 'response_format') === 'text') {
    return { kind: 'bytes', contentType: 'text/plain; charset=utf-8', body: new Uint8Array(Buffer.from(transcript, 'utf8')), headers: { 'x-audio-duration-seconds': String(duration) } };
  }
  return {
    kind: 'json',
    body: {
      text: transcript,
      language,
      duration_seconds: duration,
      usage: { type: 'duration', seconds: Math.ceil(seconds) },
    },
  };
}

async function readAudioBytes(call: OperationCall): Promise<Uint8Array> {
  // A multipart `file` part (OpenAI clients' way) comes first, as with the mapped providers.
  if (call.body.file instanceof UploadedMedia) return (await call.body.file.read()).bytes;
  const encoded = readString(call.body, 'audio_base64');
  if (encoded !== undefined) {
    const dataUrl = encoded.startsWith('data:') ? decodeDataUrl(encoded) : undefined;
    const bytes = dataUrl ? dataUrl.bytes : decodeBase64Field(encoded, 'audio_base64');
    if (bytes.length === 0) throw errors.invalidRequest("'audio_base64' holds no audio.", 'invalid_audio');
    return bytes;
  }
  const fileId = readString(call.body, 'file_id');
  if (fileId === undefined) throw errors.invalidRequest("Send the audio in 'audio_base64' or 'file_id'.", 'missing_audio');
  const bytes = await call.services.files.read(fileId, call.owner);
  if (!bytes) throw errors.invalidRequest(`File '${fileId}' was not found.`, 'file_not_found', { file_id: fileId });
  return bytes;
}

/** Magic bytes of common compressed audio containers. */
function detectCompressedAudio(bytes: Uint8Array): boolean {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ascii = (start: number, end: number): string => b.toString('latin1', start, end);
  if (b.length < 12) return false;
  return ascii(0, 3) === 'ID3' // MP3 with ID3v2 tag
    || (b[0] === 0xff && (b[1]! & 0xe0) === 0xe0) // MPEG audio frame sync (MP3 / ADTS AAC)
    || ascii(0, 4) === 'OggS'
    || ascii(0, 4) === 'fLaC'
    || ascii(4, 8) === 'ftyp' // MP4 / M4A
    || b.readUInt32BE(0) === 0x1a45dfa3; // EBML: WebM / Matroska
}
