import { deflateSync } from 'node:zlib';

/** Deterministic test media: small but valid files, plus arbitrary bytes for round trips. */

/** A valid 1x1 (or w x h) PNG of one colour. */
export function makePng(width = 1, height = 1, rgb: [number, number, number] = [200, 30, 30]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer): number => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; ihdr[9] = 2; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** Bytes that start like an MP3 (ID3 tag) followed by a deterministic pattern of `size` bytes. */
export function makeMp3Like(size = 4096, seed = 7): Buffer {
  const out = Buffer.alloc(size);
  out.write('ID3', 0, 'latin1');
  let x = seed;
  for (let i = 3; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** A minimal valid WAV of `samples` 16-bit mono samples at 16 kHz. */
export function makeWav(samples = 1600): Buffer {
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin(i / 10) * 8000), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16000, 24);
  header.writeUInt32LE(32000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** A tiny MP4-like file (`ftyp` box first). */
export function makeMp4Like(tag = 'fake'): Buffer {
  const ftyp = Buffer.from('0000001866747970697336d0000000000069736f6d', 'hex');
  return Buffer.concat([ftyp, Buffer.from(`mdat:${tag}`, 'latin1')]);
}

/** A deterministic unit vector for a text (so tests can recompute what a fake returned). */
export function fakeVector(text: string, dimensions: number): number[] {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619) >>> 0;
  const v = Array.from({ length: dimensions }, (_, i) => (((h * (i + 1)) % 1000) / 1000) - 0.5);
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1;
  return v.map((x) => Math.fround(x / norm));
}

/** Little-endian float32 bytes of a vector, base64 (OpenAI's `encoding_format: base64`). */
export function encodeFloat32Base64(values: readonly number[]): string {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeFloatLE(v, i * 4));
  return b.toString('base64');
}
