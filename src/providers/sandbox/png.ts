import { crc32, deflateSync } from 'node:zlib';

const SIGNATURE = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Encodes 8-bit RGB (3 channels) or RGBA (4 channels) pixels, row-major, as a PNG file
 * (https://www.w3.org/TR/png-3/): signature, IHDR, one zlib IDAT (filter 0 on every row), IEND,
 * each chunk with its CRC-32 over type and data.
 */
export function encodePng(width: number, height: number, channels: 3 | 4, pixels: Uint8Array): Uint8Array {
  if (pixels.length !== width * height * channels) throw new RangeError('pixel buffer does not match the image size');
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = channels === 4 ? 6 : 2; // colour type: truecolour (+ alpha)
  // bytes 10..12: compression 0, filter method 0, no interlace
  const stride = width * channels;
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (stride + 1)] = 0; // filter type None
    raw.set(pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  }
  return Buffer.concat([SIGNATURE, encodeChunk('IHDR', header), encodeChunk('IDAT', deflateSync(raw)), encodeChunk('IEND', Buffer.alloc(0))]);
}

function encodeChunk(type: string, data: Uint8Array): Buffer {
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write(type, 4, 'latin1');
  chunk.set(data, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return chunk;
}
