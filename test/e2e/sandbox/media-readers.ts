import { crc32, inflateSync } from 'node:zlib';

/** What the e2e tests read back from a PNG. */
export interface PngInfo { width: number; height: number; bitDepth: number; colorType: number; chunkTypes: string[]; pixelBytes: number }

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Bytes per pixel at bit depth 8, by PNG colour type (gray, -, RGB, palette, gray+alpha, -, RGBA). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * Decodes a PNG far enough to prove it is one (https://www.w3.org/TR/png-3/): the signature,
 * IHDR first, every chunk CRC, IEND last, and IDAT inflating to exactly the size IHDR implies
 * (one filter byte per row plus the row's pixels). Throws on anything else.
 */
export function readPng(bytes: Buffer): PngInfo {
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('bad PNG signature');
  const chunkTypes: string[] = [];
  const idat: Buffer[] = [];
  let ihdr: Buffer | undefined;
  let offset = 8;
  while (offset + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    const crc = bytes.readUInt32BE(offset + 8 + length);
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== crc) throw new Error(`bad CRC in ${type}`);
    chunkTypes.push(type);
    if (type === 'IHDR') ihdr = data;
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  if (chunkTypes[0] !== 'IHDR' || !ihdr || ihdr.length !== 13) throw new Error('IHDR is not the first chunk');
  if (chunkTypes.at(-1) !== 'IEND') throw new Error('IEND is not the last chunk');
  const width = ihdr.readUInt32BE(0);
  const height = ihdr.readUInt32BE(4);
  const bitDepth = ihdr[8]!;
  const colorType = ihdr[9]!;
  const channels = CHANNELS[colorType];
  if (channels === undefined || bitDepth !== 8) throw new Error(`unexpected colour type ${colorType} / depth ${bitDepth}`);
  const pixels = inflateSync(Buffer.concat(idat));
  if (pixels.length !== height * (1 + width * channels)) throw new Error(`IDAT holds ${pixels.length} bytes, IHDR implies ${height * (1 + width * channels)}`);
  return { width, height, bitDepth, colorType, chunkTypes, pixelBytes: pixels.length };
}

/** What the e2e tests read back from a WAV. */
export interface WavInfo { audioFormat: number; channels: number; sampleRate: number; bitsPerSample: number; dataBytes: number; durationSeconds: number; peak: number }

/**
 * Reads a RIFF/WAVE file (http://soundfile.sapp.org/doc/WaveFormat/): `RIFF` size `WAVE`, a
 * `fmt ` chunk and a `data` chunk (other chunks such as LIST/INFO are skipped). The RIFF size
 * must match the file; `peak` is the largest absolute 16-bit sample (0 = silence).
 */
export function readWav(bytes: Buffer): WavInfo {
  if (bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE') throw new Error('not a RIFF/WAVE file');
  if (bytes.readUInt32LE(4) !== bytes.length - 8) throw new Error('RIFF size does not match the file size');
  let fmt: Buffer | undefined;
  let data: Buffer | undefined;
  for (let offset = 12; offset + 8 <= bytes.length;) {
    const id = bytes.toString('latin1', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = bytes.subarray(offset + 8, offset + 8 + size);
    if (id === 'fmt ') fmt = body;
    if (id === 'data') data = body;
    offset += 8 + size + (size % 2);
  }
  if (!fmt || !data) throw new Error('missing fmt or data chunk');
  const audioFormat = fmt.readUInt16LE(0);
  const channels = fmt.readUInt16LE(2);
  const sampleRate = fmt.readUInt32LE(4);
  const bitsPerSample = fmt.readUInt16LE(14);
  let peak = 0;
  if (bitsPerSample === 16) for (let i = 0; i + 1 < data.length; i += 2) peak = Math.max(peak, Math.abs(data.readInt16LE(i)));
  const durationSeconds = data.length / (sampleRate * channels * (bitsPerSample / 8));
  return { audioFormat, channels, sampleRate, bitsPerSample, dataBytes: data.length, durationSeconds, peak };
}
