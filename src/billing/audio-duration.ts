/**
 * Audio durations for billing by the second, without decoding: exact for WAV (from the RIFF
 * header: data bytes / byte rate), otherwise an upper bound from the size at a low bit rate.
 * http://soundfile.sapp.org/doc/WaveFormat/
 */

/** Lowest bit rate assumed for compressed audio of unknown length: 32 kbit/s (speech-grade). */
export const MIN_AUDIO_BYTES_PER_SECOND = 4000;

/** Duration of a WAV file in seconds, or undefined when the bytes are not a readable WAV. */
export function readWavSeconds(bytes: Uint8Array): number | undefined {
  if (bytes.length < 44) return undefined;
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  let byteRate = 0;
  for (let offset = 12; offset + 8 <= b.length;) {
    const id = b.toString('latin1', offset, offset + 4);
    const size = b.readUInt32LE(offset + 4);
    if (id === 'fmt ' && offset + 16 <= b.length) byteRate = b.readUInt32LE(offset + 16);
    if (id === 'data') {
      if (byteRate <= 0) return undefined;
      // Streamed WAVs may carry 0 or 0xFFFFFFFF as the size: use what is actually there.
      const available = b.length - offset - 8;
      const dataBytes = size === 0 || size > available ? available : size;
      return dataBytes / byteRate;
    }
    offset += 8 + size + (size % 2);
  }
  return undefined;
}

/** Seconds of an audio file: exact for WAV, else an upper bound at MIN_AUDIO_BYTES_PER_SECOND. */
export function estimateAudioSeconds(bytes: Uint8Array): number {
  return readWavSeconds(bytes) ?? bytes.length / MIN_AUDIO_BYTES_PER_SECOND;
}
