import { crc32, inflateSync } from 'node:zlib';

/** What the tests read back from a PNG, checking every chunk CRC on the way. */
export interface DecodedPng { width: number; height: number; colorType: number; bitDepth: number; chunks: string[]; raw: Buffer; crcValid: boolean }

/** Parses PNG chunks (test helper), inflates the IDAT data. Throws on a bad signature. */
export function readPng(bytes: Buffer): DecodedPng {
  if (!bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) throw new Error('not a PNG signature');
  const chunks: string[] = [];
  const idat: Buffer[] = [];
  let crcValid = true;
  let width = 0, height = 0, colorType = -1, bitDepth = 0;
  for (let offset = 8; offset < bytes.length;) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const data = bytes.subarray(offset + 8, offset + 8 + length);
    if (crc32(bytes.subarray(offset + 4, offset + 8 + length)) !== bytes.readUInt32BE(offset + 8 + length)) crcValid = false;
    chunks.push(type);
    if (type === 'IHDR') { width = data.readUInt32BE(0); height = data.readUInt32BE(4); bitDepth = data[8]!; colorType = data[9]!; }
    if (type === 'IDAT') idat.push(data);
    offset += 12 + length;
  }
  return { width, height, colorType, bitDepth, chunks, raw: inflateSync(Buffer.concat(idat)), crcValid };
}
