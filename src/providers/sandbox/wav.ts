/**
 * RIFF/WAVE PCM encoding and parsing (http://soundfile.sapp.org/doc/WaveFormat/). The sandbox
 * writes 16-bit mono PCM with an optional LIST/INFO chunk after the data: `ISFT` names the
 * software and `ICMT` carries the text the audio was made from, so a sandbox transcription can
 * give the original text back. Readers that only know `fmt ` and `data` skip the extra chunk.
 */

/** Sample rate of all sandbox audio. */
export const SAMPLE_RATE = 16_000;

/** Fields parsed from a WAV header. */
export interface WavInfo {
  audioFormat: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  dataBytes: number;
  durationSeconds: number;
  /** LIST/INFO entries (ISFT, ICMT ...), when present. */
  tags: Record<string, string>;
}

/** Float samples in [-1, 1] -> 16-bit mono PCM WAV bytes, with optional INFO tags. */
export function encodeWav(samples: Float32Array, tags: Record<string, string> = {}, sampleRate = SAMPLE_RATE): Buffer {
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, s)) * 32767), i * 2));
  const format = Buffer.alloc(16);
  format.writeUInt16LE(1, 0); // PCM
  format.writeUInt16LE(1, 2); // mono
  format.writeUInt32LE(sampleRate, 4);
  format.writeUInt32LE(sampleRate * 2, 8); // byte rate
  format.writeUInt16LE(2, 12); // block align
  format.writeUInt16LE(16, 14); // bits per sample
  const chunks = [encodeChunk('fmt ', format), encodeChunk('data', data)];
  const entries = Object.entries(tags);
  if (entries.length > 0) {
    const info = entries.map(([id, text]) => encodeChunk(id, Buffer.from(`${text}\0`, 'utf8')));
    chunks.push(encodeChunk('LIST', Buffer.concat([Buffer.from('INFO', 'latin1'), ...info])));
  }
  const body = Buffer.concat(chunks);
  const header = Buffer.alloc(12);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(4 + body.length, 4);
  header.write('WAVE', 8, 'latin1');
  return Buffer.concat([header, body]);
}

/** Parses a WAV file; undefined when the bytes are not RIFF/WAVE with `fmt ` and `data` chunks. */
export function parseWav(bytes: Uint8Array): WavInfo | undefined {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 12 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  let format: Pick<WavInfo, 'audioFormat' | 'channels' | 'sampleRate' | 'bitsPerSample'> | undefined;
  let dataBytes: number | undefined;
  const tags: Record<string, string> = {};
  for (let offset = 12; offset + 8 <= b.length;) {
    const id = b.toString('latin1', offset, offset + 4);
    const size = b.readUInt32LE(offset + 4);
    const start = offset + 8;
    const end = Math.min(b.length, start + size);
    if (id === 'fmt ' && end - start >= 16) {
      format = { audioFormat: b.readUInt16LE(start), channels: b.readUInt16LE(start + 2), sampleRate: b.readUInt32LE(start + 4), bitsPerSample: b.readUInt16LE(start + 14) };
    } else if (id === 'data') {
      dataBytes = end - start; // a truncated file counts what is really there
    } else if (id === 'LIST' && b.toString('latin1', start, start + 4) === 'INFO') {
      readInfoTags(b.subarray(start + 4, end), tags);
    }
    offset = start + size + (size % 2);
  }
  if (!format || dataBytes === undefined || format.channels === 0 || format.sampleRate === 0 || format.bitsPerSample === 0) return undefined;
  const bytesPerSecond = format.sampleRate * format.channels * Math.ceil(format.bitsPerSample / 8);
  return { ...format, dataBytes, durationSeconds: dataBytes / bytesPerSecond, tags };
}

function readInfoTags(b: Buffer, tags: Record<string, string>): void {
  for (let offset = 0; offset + 8 <= b.length;) {
    const id = b.toString('latin1', offset, offset + 4);
    const size = b.readUInt32LE(offset + 4);
    tags[id] = b.toString('utf8', offset + 8, Math.min(b.length, offset + 8 + size)).replace(/\0+$/, '');
    offset += 8 + size + (size % 2);
  }
}

function encodeChunk(id: string, data: Buffer): Buffer {
  const chunk = Buffer.alloc(8 + data.length + (data.length % 2)); // RIFF chunks are word aligned
  chunk.write(id, 0, 'latin1');
  chunk.writeUInt32LE(data.length, 4);
  data.copy(chunk, 8);
  return chunk;
}
